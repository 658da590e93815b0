/* tls_openssl.c - mcp.h's TLS hook (mcp_tls) on OpenSSL 3, and a small program that uses it.

       tls_openssl https://example.com/mcp

   connects to an MCP server over Streamable HTTP, prints what the server says about itself
   and lists its tools. Certificates are verified against the system's trusted CAs; for a
   server with a private or self-signed certificate, name a PEM file of the CA(s) to trust
   instead in the environment:

       MCP_TLS_CA_FILE=ca.pem tls_openssl https://localhost:8443/mcp

   or, for a test server only, skip the verification (anyone on the path could then read and
   change the traffic):

       MCP_TLS_INSECURE=1 tls_openssl https://localhost:8443/mcp

   Build (the Makefile does this as build/tls_openssl):

       cc -std=c99 examples/tls_openssl.c -o tls_openssl -lssl -lcrypto

   Reusing the hook in your own program: copy the part above main(), or include this file
   with TLS_OPENSSL_NO_MAIN defined (tests/tls_test.c and examples/mcpc.c do; it defines
   MCP_IMPLEMENTATION and includes mcp.h itself, so include it instead of mcp.h), then

       tls_openssl t;
       if (!tls_openssl_init(&t, NULL, &err)) ...      // NULL: the system's CAs
       tls_openssl_insecure(&t);                        // only to skip verification (testing)
       desc.tls = &t.hook;                              // t must outlive the client
       ...
       mcp_client_free(c);
       tls_openssl_free(&t);

   What the hook does, and why:
   - open() runs the handshake on the connected socket mcp.h hands it (blocking, with the
     socket's SO_RCVTIMEO/SO_SNDTIMEO set to what is left of the connect timeout), with SNI,
     ALPN "http/1.1", TLS 1.2 or newer, and verification of the chain and of the host name
     (or IP address); tls_openssl_insecure() turns verification off, for a test server whose
     certificate nothing vouches for (MCP_TLS_INSECURE=1 below). A failure becomes a sentence in the mcp_error: mcp.h reports it as
     "TLS handshake with HOST:PORT failed: <sentence>". Status: MCP_ERR_TIMEOUT when the
     handshake ran out of time, MCP_ERR_IO for an OS error (sys_errno kept), MCP_ERR_PROTOCOL
     for everything TLS itself refused (an untrusted certificate, a wrong name, no common
     protocol version, a peer that does not speak TLS).
   - Afterwards mcp.h makes the socket non-blocking, and read()/write() map OpenSSL's
     SSL_ERROR_WANT_READ/WRITE to MCP_TLS_WANT_READ/WRITE. read() returns 0 only for a clean
     close_notify; a connection cut without one is an error (-1), as a truncation may be.
   - The socket is driven through a small BIO of our own that sends with MSG_NOSIGNAL:
     OpenSSL's socket BIO uses write(), which raises SIGPIPE (and by default kills the
     process) when the server has gone away. mcp.h itself never raises SIGPIPE.
   - close() sends close_notify (without waiting for the server's) unless the connection
     already failed, and frees the session; mcp.h closes the fd itself.
   - mcp.h reads with a 64 KiB buffer, larger than any TLS record, so one SSL_read() per
     read() leaves no decrypted bytes waiting inside OpenSSL where poll() cannot see them.
     Don't turn on read-ahead (SSL_CTX_set_read_ahead) for the same reason.

   Public domain or MIT, as mcp.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
/* mcp.h's implementation comes with this file, unless the program builds it in a file of its
   own and says so with TLS_OPENSSL_NO_IMPLEMENTATION */
#if !defined(MCP_IMPLEMENTATION) && !defined(TLS_OPENSSL_NO_IMPLEMENTATION)
#define MCP_IMPLEMENTATION
#endif
#include "../mcp.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* The hook's API: a program that includes this file may leave some of it unused. */
#if defined(__GNUC__) || defined(__clang__)
#define TLS_OPENSSL_API static __attribute__((unused))
#else
#define TLS_OPENSSL_API static
#endif

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0                   /* macOS/BSD: mcp.h sets SO_NOSIGPIPE on the socket */
#endif

/* The hook's state: one per program is enough (it may serve many clients). */
typedef struct tls_openssl {
    mcp_tls hook;                        /* point desc.tls here */
    SSL_CTX *ctx;
    BIO_METHOD *bio;                     /* the socket BIO below */
    int insecure;                        /* tls_openssl_insecure: no verification at all */
} tls_openssl;

/* One connection: what open() returns and mcp.h hands back to read/write/close. */
typedef struct tls_openssl_conn {
    SSL *ssl;
    int fd;
    int eof;                             /* recv() saw the end of the stream */
    int failed;                          /* a fatal error: no close_notify at close */
} tls_openssl_conn;

/* ---- a socket BIO that never raises SIGPIPE ------------------------------------------------ */

static int tls_openssl_bio_write(BIO *b, const char *buf, int len)
{
    tls_openssl_conn *k = (tls_openssl_conn *)BIO_get_data(b);
    ssize_t n;
    BIO_clear_retry_flags(b);
    do n = send(k->fd, buf, (size_t)len, MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(b);
    return (int)n;
}

static int tls_openssl_bio_read(BIO *b, char *buf, int len)
{
    tls_openssl_conn *k = (tls_openssl_conn *)BIO_get_data(b);
    ssize_t n;
    BIO_clear_retry_flags(b);
    do n = recv(k->fd, buf, (size_t)len, 0); while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(b);
    if (n == 0) k->eof = 1;
    return (int)n;
}

static long tls_openssl_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    tls_openssl_conn *k = (tls_openssl_conn *)BIO_get_data(b);
    (void)num; (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;                  /* nothing is buffered here */
    case BIO_CTRL_EOF: return k && k->eof;          /* lets OpenSSL tell a cut from an error */
    default: return 0;
    }
}

/* ---- the hook ------------------------------------------------------------------------------- */

/* What went wrong in a handshake, as the end of mcp.h's sentence "TLS handshake with ...
   failed: ". */
static void tls_openssl_describe(tls_openssl_conn *k, int ret, int sys, const char *host, mcp_error *err)
{
    int e = SSL_get_error(k->ssl, ret);
    long v = SSL_get_verify_result(k->ssl);
    unsigned long lib = ERR_peek_last_error();
    const char *reason = lib ? ERR_reason_error_string(lib) : NULL;
    int name = v == X509_V_ERR_HOSTNAME_MISMATCH || v == X509_V_ERR_IP_ADDRESS_MISMATCH;
    err->sys_errno = 0;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        /* the socket's SO_RCVTIMEO/SO_SNDTIMEO expired: the connect time is used up */
        err->status = MCP_ERR_TIMEOUT;
        snprintf(err->message, sizeof err->message, "the server did not complete the handshake "
                 "in time.");
    } else if (v != X509_V_OK) {
        err->status = MCP_ERR_PROTOCOL;
        snprintf(err->message, sizeof err->message, "the server's certificate was rejected: %s%s%s%s",
                 X509_verify_cert_error_string(v), name ? " (it is not valid for " : "",
                 name ? host : "", name ? ")." : ".");
    } else if (e == SSL_ERROR_SYSCALL && sys != 0) {
        err->status = MCP_ERR_IO;
        err->sys_errno = sys;
        snprintf(err->message, sizeof err->message, "%s.", strerror(sys));
    } else if (k->eof || (e == SSL_ERROR_SYSCALL && !lib)) {
        err->status = MCP_ERR_PROTOCOL;
        snprintf(err->message, sizeof err->message, "the server closed the connection during the "
                 "handshake.");
    } else {
        err->status = MCP_ERR_PROTOCOL;
        snprintf(err->message, sizeof err->message, "%s%s.", reason ? reason : "TLS error",
                 reason && (strstr(reason, "wrong version number") || strstr(reason, "packet length"))
                     ? " (is it a plain http:// server?)" : "");
    }
}

static void *tls_openssl_open(void *user, int fd, const char *host, mcp_error *err)
{
    tls_openssl *t = (tls_openssl *)user;
    tls_openssl_conn *k = (tls_openssl_conn *)calloc(1, sizeof *k);
    unsigned char ip[16];
    BIO *bio;
    int ret;
    if (!k || !(k->ssl = SSL_new(t->ctx)) || !(bio = BIO_new(t->bio))) {
        err->status = MCP_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory.");
        if (k) SSL_free(k->ssl);
        free(k);
        return NULL;
    }
    k->fd = fd;
    BIO_set_data(bio, k);
    BIO_set_init(bio, 1);
    SSL_set_bio(k->ssl, bio, bio);      /* the SSL owns the BIO; the fd stays mcp.h's */
    if (inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1) {
        /* an IP address: checked against the certificate's IP entries; no SNI (RFC 6066) */
        if (!t->insecure) X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(k->ssl), host);
    } else {
        SSL_set_tlsext_host_name(k->ssl, host);      /* SNI */
        if (!t->insecure) SSL_set1_host(k->ssl, host);   /* the certificate must name host */
    }
    ERR_clear_error();
    errno = 0;
    ret = SSL_connect(k->ssl);
    if (ret != 1) {
        tls_openssl_describe(k, ret, errno, host, err);
        ERR_clear_error();
        SSL_free(k->ssl);
        free(k);
        return NULL;
    }
    return k;
}

/* SSL_ERROR_* after a read or write, as the hook's return value. */
static long tls_openssl_result(tls_openssl_conn *k, int ret)
{
    int e = SSL_get_error(k->ssl, ret);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ) return MCP_TLS_WANT_READ;
    if (e == SSL_ERROR_WANT_WRITE) return MCP_TLS_WANT_WRITE;
    if (e == SSL_ERROR_ZERO_RETURN) return 0;    /* close_notify: a clean end */
    k->failed = 1;                               /* a reset, a cut, a TLS alert */
    return -1;
}

static long tls_openssl_read(void *session, void *buf, size_t len)
{
    tls_openssl_conn *k = (tls_openssl_conn *)session;
    size_t n = 0;
    ERR_clear_error();
    if (SSL_read_ex(k->ssl, buf, len, &n)) return (long)n;
    return tls_openssl_result(k, 0);
}

static long tls_openssl_write(void *session, const void *buf, size_t len)
{
    tls_openssl_conn *k = (tls_openssl_conn *)session;
    size_t n = 0;
    long r;
    ERR_clear_error();
    if (SSL_write_ex(k->ssl, buf, len, &n)) return (long)n;
    r = tls_openssl_result(k, 0);
    return r == 0 ? -1 : r;             /* the server's close_notify came: nothing more goes out */
}

static void tls_openssl_close(void *session)
{
    tls_openssl_conn *k = (tls_openssl_conn *)session;
    if (!k) return;
    if (!k->failed) SSL_shutdown(k->ssl);        /* send close_notify; don't wait for the reply */
    ERR_clear_error();
    SSL_free(k->ssl);
    free(k);
}

/* Sets up t: verification against ca_file (a PEM file of trusted CAs), or against the system's
   CAs when ca_file is NULL. Returns 1, or 0 with err filled. */
TLS_OPENSSL_API int tls_openssl_init(tls_openssl *t, const char *ca_file, mcp_error *err)
{
    static const unsigned char alpn[] = "\x08http/1.1";
    unsigned long e;
    memset(t, 0, sizeof *t);
    memset(err, 0, sizeof *err);
    ERR_clear_error();
    if (!(t->ctx = SSL_CTX_new(TLS_client_method())) ||
        !(t->bio = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "mcp socket"))) {
        err->status = MCP_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "Could not set up OpenSSL (out of memory?).");
        goto fail;
    }
    BIO_meth_set_write(t->bio, tls_openssl_bio_write);
    BIO_meth_set_read(t->bio, tls_openssl_bio_read);
    BIO_meth_set_ctrl(t->bio, tls_openssl_bio_ctrl);
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);          /* verification is always on */
    /* mcp.h may hand write() the rest of a buffer after a short write */
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_alpn_protos(t->ctx, alpn, sizeof alpn - 1);
    if (ca_file ? SSL_CTX_load_verify_locations(t->ctx, ca_file, NULL) != 1
                : SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
        e = ERR_peek_last_error();
        err->status = MCP_ERR_INVALID;
        snprintf(err->message, sizeof err->message, "Could not load the trusted CAs from %s: %s.",
                 ca_file ? ca_file : "the system's default locations",
                 e && ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "unknown error");
        goto fail;
    }
    t->hook.user = t;
    t->hook.open = tls_openssl_open;
    t->hook.read = tls_openssl_read;
    t->hook.write = tls_openssl_write;
    t->hook.close = tls_openssl_close;
    return 1;
fail:
    ERR_clear_error();
    SSL_CTX_free(t->ctx);
    BIO_meth_free(t->bio);
    memset(t, 0, sizeof *t);
    return 0;
}

/* Turns verification off on an initialised t: any certificate, any name, is accepted. For
   testing against a server with a throw-away certificate; the connection is then encrypted but
   not authenticated. */
TLS_OPENSSL_API void tls_openssl_insecure(tls_openssl *t)
{
    t->insecure = 1;
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_NONE, NULL);
}

TLS_OPENSSL_API void tls_openssl_free(tls_openssl *t)
{
    SSL_CTX_free(t->ctx);
    BIO_meth_free(t->bio);
    memset(t, 0, sizeof *t);
}

/* ---- the program ---------------------------------------------------------------------------- */
#ifndef TLS_OPENSSL_NO_MAIN

static const char *str_or(const mcp_json *v, const char *dflt)
{
    return mcp_json_str(v) ? mcp_json_str(v) : dflt;
}

int main(int argc, char **argv)
{
    const char *ca_file = getenv("MCP_TLS_CA_FILE"), *insecure = getenv("MCP_TLS_INSECURE");
    tls_openssl t;
    mcp_client_desc d;
    mcp_client *c = NULL;
    mcp_json_doc *tools = NULL;
    mcp_error err;
    const mcp_json *info, *tool;
    size_t i;
    int rc = 1;
    if (argc != 2) {
        fprintf(stderr, "usage: %s https://host[:port]/path\n"
                        "  MCP_TLS_CA_FILE=ca.pem trusts the CAs in ca.pem instead of the system's\n"
                        "  MCP_TLS_INSECURE=1 checks no certificate (a test server only)\n",
                argv[0]);
        return 2;
    }
    if (ca_file && !*ca_file) ca_file = NULL;
    if (!tls_openssl_init(&t, ca_file, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    if (insecure && *insecure && strcmp(insecure, "0")) {
        tls_openssl_insecure(&t);
        fprintf(stderr, "MCP_TLS_INSECURE: the server's certificate is not checked.\n");
    }

    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP;              /* Streamable HTTP */
    d.url = argv[1];
    d.tls = &t.hook;
    d.client_name = "tls_openssl";
    d.client_version = "0.1";
    if (!(c = mcp_client_new(&d, &err)) || mcp_client_connect(c, &err) != MCP_OK) {
        fprintf(stderr, "%s\n", err.message);
        if (!ca_file && strstr(err.message, "certificate was rejected"))
            fprintf(stderr, "A private or self-signed certificate? MCP_TLS_CA_FILE=ca.pem trusts the CAs in ca.pem.\n");
        goto done;
    }

    info = mcp_client_server_info(c);
    printf("server:   %s %s\n", str_or(mcp_json_get(info, "name"), "(no name)"),
           str_or(mcp_json_get(info, "version"), ""));
    printf("protocol: %s\n", mcp_client_protocol_version(c));
    if (mcp_client_instructions(c)) printf("instructions: %s\n", mcp_client_instructions(c));

    if (!mcp_json_get(mcp_client_server_capabilities(c), "tools")) {
        printf("tools:    (the server offers none)\n");
    } else if (mcp_client_list_tools(c, &tools, &err) != MCP_OK) {
        fprintf(stderr, "%s\n", err.message);
        goto done;
    } else {
        printf("tools:    %zu\n", mcp_json_len(mcp_json_get(mcp_json_root(tools), "tools")));
        mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, tool) {
            const char *desc = mcp_json_str(mcp_json_get(tool, "description"));
            printf("  %s%s%s\n", str_or(mcp_json_get(tool, "name"), "?"), desc ? " - " : "", desc ? desc : "");
        }
    }
    rc = 0;
done:
    mcp_json_free(tools);
    mcp_client_free(c);                  /* before the hook it uses */
    tls_openssl_free(&t);
    return rc;
}

#endif /* TLS_OPENSSL_NO_MAIN */
