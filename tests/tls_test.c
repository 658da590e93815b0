/* Tests of https:// through the TLS hook of examples/tls_openssl.c (which it includes, without
   its main), against a local TLS server: a forked child speaking MCP over Streamable HTTP on
   OpenSSL, with certificates made here at run time (OpenSSL API, PEM files in a temporary
   directory).

   Scenarios: https:// without a hook is refused at mcp_client_new; a CA file that cannot be
   loaded; connect with the right CA (server info, tools, calls, ping, an SSE answer, a
   multi-megabyte answer, calls in parallel, the connection reused, the session DELETEd at
   close); https://127.0.0.1 against the certificate's IP entry; certificate failures (another
   CA, the system's CAs, a name the certificate does not hold); a server that never answers the
   handshake (timeout); a server that speaks plain HTTP; the server killed during a session;
   the hook itself over a socket pair (clean close_notify -> 0, a cut -> -1, no SIGPIPE from
   write() or close() when the peer is gone). Each scenario checks that no fd is left open and
   no child is left unreaped. Public API only.

   Usage: tls_test [DATA_DIR]   (DATA_DIR is not used.) MCP_TEST_QUICK=1: smaller answers. */
#define TLS_OPENSSL_NO_MAIN
#include "../examples/tls_openssl.c"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define EQST(st, want, err) do { mcp_status st_ = (st);                                      \
    CHECKF(st_ == (want), "status %d (%s), want %d (%s); message: %s", (int)st_, mcp_status_str(st_), \
           (int)(want), mcp_status_str(want), (err).message); } while (0)

static const char *nn(const char *s) { return s ? s : "(null)"; }

/* ---- the scenario guard: fds and children --------------------------------------------------- */

typedef struct guard { const char *name; int fds, checks; int64_t t0; } guard;

static void g_begin(guard *g, const char *name)
{
    g->name = name; g->fds = count_fds(); g->checks = t_pass + t_fail; g->t0 = mcp_time_ms();
}

static void g_end(guard *g)
{
    int fds = count_fds(), r;
    struct sigaction a;
    CHECKF(fds == g->fds, "%s: fd leak: %d open before, %d after", g->name, g->fds, fds);
    errno = 0;
    r = waitpid(-1, NULL, WNOHANG);
    CHECKF(r == -1 && errno == ECHILD, "%s: a child process is left (waitpid said %d)", g->name, r);
    sigaction(SIGPIPE, NULL, &a);
    CHECKF(a.sa_handler == SIG_DFL, "%s: SIGPIPE disposition changed", g->name);
    printf("# %-30s %5lld ms %4d checks\n", g->name, (long long)(mcp_time_ms() - g->t0), t_pass + t_fail - g->checks);
    fflush(stdout);
}

/* ---- certificates --------------------------------------------------------------------------- */

typedef struct cert { EVP_PKEY *key; X509 *x509; char path[512]; } cert;

static char tmpdir[256];

/* A self-signed certificate for cn with the subjectAltName san, written to tmpdir/file. */
static int make_cert(cert *c, const char *cn, const char *san, const char *file, long serial)
{
    X509V3_CTX v3;
    X509_EXTENSION *ext;
    X509_NAME *name;
    FILE *f;
    int ok;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s/%s", tmpdir, file);
    if (!(c->key = EVP_EC_gen("P-256")) || !(c->x509 = X509_new())) return 0;
    X509_set_version(c->x509, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c->x509), serial);
    X509_gmtime_adj(X509_getm_notBefore(c->x509), -3600);
    X509_gmtime_adj(X509_getm_notAfter(c->x509), 86400);
    X509_set_pubkey(c->x509, c->key);
    name = X509_get_subject_name(c->x509);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(c->x509, name);
    X509V3_set_ctx(&v3, c->x509, c->x509, NULL, NULL, 0);
    if (!(ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san))) return 0;
    X509_add_ext(c->x509, ext, -1);
    X509_EXTENSION_free(ext);
    if (!(ext = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints, "critical,CA:TRUE"))) return 0;
    X509_add_ext(c->x509, ext, -1);
    X509_EXTENSION_free(ext);
    if (!X509_sign(c->x509, c->key, EVP_sha256())) return 0;
    if (!(f = fopen(c->path, "w"))) return 0;
    ok = PEM_write_X509(f, c->x509);
    return fclose(f) == 0 && ok;
}

static void free_cert(cert *c)
{
    if (c->path[0]) unlink(c->path);
    X509_free(c->x509);
    EVP_PKEY_free(c->key);
    memset(c, 0, sizeof *c);
}

static SSL_CTX *server_ctx(const cert *c)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx || SSL_CTX_use_certificate(ctx, c->x509) != 1 || SSL_CTX_use_PrivateKey(ctx, c->key) != 1) return NULL;
    return ctx;
}

/* ---- the server (a forked child) ------------------------------------------------------------ */

enum { SRV_MCP, SRV_PLAIN };

typedef struct server { pid_t pid; int port; } server;

typedef struct sconn { int fd; SSL *ssl; mcp_buf in; int closing, hs; } sconn;   /* hs: handshaking */

static struct { int connections, requests, deletes, bad; } stats;   /* the child's own copy */
static const char *SESSION = "s-7f3a";

static void set_timeouts(int fd, int ms)
{
    struct timeval tv;
    tv.tv_sec = ms / 1000; tv.tv_usec = (ms % 1000) * 1000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int srv_write(sconn *k, const char *p, size_t n)
{
    size_t w;
    struct pollfd pf;
    int e;
    while (n) {
        if (SSL_write_ex(k->ssl, p, n, &w)) { p += w; n -= w; continue; }
        e = SSL_get_error(k->ssl, 0);
        if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) return -1;
        pf.fd = k->fd; pf.events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN; pf.revents = 0;
        if (poll(&pf, 1, 10000) <= 0) return -1;
    }
    return 0;
}

static void srv_respond(sconn *k, int status, const char *ctype, const char *extra, const char *body, size_t len)
{
    char head[512];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n%s%s%sContent-Length: %zu\r\n%s\r\n", status,
                     status == 200 ? "OK" : status == 202 ? "Accepted" : "Error",
                     ctype ? "Content-Type: " : "", ctype ? ctype : "", ctype ? "\r\n" : "", len,
                     extra ? extra : "");
    if (srv_write(k, head, (size_t)n) < 0 || srv_write(k, body, len) < 0) k->closing = 1;
}

static int ieq(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        int x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y || !y) return 0;
    }
    return b[n] == 0;
}

typedef struct req {
    char method[16], target[64], session[64], version[32];
    const char *body; size_t body_len;
} req;

/* One complete request at the start of p: its length, 0 if incomplete, -1 if malformed. */
static long parse_req(const char *p, size_t len, req *r)
{
    size_t i, head = 0, cl = 0, a, b, line;
    memset(r, 0, sizeof *r);
    for (i = 3; i < len; i++) if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r') { head = i + 1; break; }
    if (!head) return len > 65536 ? -1 : 0;
    if (sscanf(p, "%15s %63s", r->method, r->target) != 2) return -1;
    for (line = (size_t)(strchr(p, '\n') - p) + 1; line + 2 < head; line = b + 2) {
        for (b = line; p[b] != '\r'; b++) {}
        for (a = line; a < b && p[a] != ':'; a++) {}
        if (a == b) return -1;
        i = a + 1;
        while (i < b && p[i] == ' ') i++;
        if (ieq(p + line, "content-length", a - line)) cl = (size_t)strtoul(p + i, NULL, 10);
        else if (ieq(p + line, "mcp-session-id", a - line) && b - i < sizeof r->session) memcpy(r->session, p + i, b - i);
        else if (ieq(p + line, "mcp-protocol-version", a - line) && b - i < sizeof r->version) memcpy(r->version, p + i, b - i);
    }
    if (len < head + cl) return 0;
    r->body = p + head; r->body_len = cl;
    return (long)(head + cl);
}

static char negotiated[32];

static void raw(mcp_jw *w, const char *json) { mcp_jw_raw(w, json, strlen(json)); }

static void srv_rpc(sconn *k, const req *r)
{
    mcp_json_doc *doc = mcp_json_parse(r->body, r->body_len, NULL);
    const mcp_json *m = mcp_json_root(doc), *id = mcp_json_get(m, "id"), *params = mcp_json_get(m, "params");
    const mcp_json *args = mcp_json_get(params, "arguments");
    const char *method = mcp_json_str(mcp_json_get(m, "method")), *tool = mcp_json_str(mcp_json_get(params, "name"));
    char sid[128], *big = NULL, *out, buf[256];
    const char *text;
    size_t len, i;
    int sse = 0, init = method && !strcmp(method, "initialize");
    mcp_jw w;
    stats.requests++;
    if (!doc || !method) { srv_respond(k, 400, "text/plain", NULL, "bad JSON-RPC", 12); goto done; }
    if (!init && (strcmp(r->session, SESSION) || strcmp(r->version, negotiated))) {  /* mcp.h's headers */
        stats.bad++;
        srv_respond(k, 400, "text/plain", NULL, "missing session or protocol version", 35);
        goto done;
    }
    if (!id) { srv_respond(k, 202, NULL, NULL, "", 0); goto done; }   /* a notification */
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "id"); mcp_jw_value(&w, id);
    if (init) {
        snprintf(negotiated, sizeof negotiated, "%s", nn(mcp_json_str(mcp_json_get(params, "protocolVersion"))));
        mcp_jw_key(&w, "result");
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, negotiated);
        mcp_jw_key(&w, "capabilities"); raw(&w, "{\"tools\":{}}");
        mcp_jw_key(&w, "serverInfo"); raw(&w, "{\"name\":\"tls-test-server\",\"version\":\"1.2.3\"}");
        mcp_jw_key(&w, "instructions"); mcp_jw_str(&w, "Served over TLS.");
        mcp_jw_obj_end(&w);
    } else if (!strcmp(method, "ping")) {
        mcp_jw_key(&w, "result"); raw(&w, "{}");
    } else if (!strcmp(method, "tools/list")) {
        mcp_jw_key(&w, "result");
        raw(&w, "{\"tools\":["
                "{\"name\":\"echo\",\"description\":\"Echoes text\",\"inputSchema\":{\"type\":\"object\","
                "\"properties\":{\"text\":{\"type\":\"string\"},\"sse\":{\"type\":\"boolean\"}}}},"
                "{\"name\":\"big\",\"description\":\"size bytes of text\",\"inputSchema\":{\"type\":\"object\","
                "\"properties\":{\"size\":{\"type\":\"integer\"}}}},"
                "{\"name\":\"stats\",\"description\":\"connections and requests so far\","
                "\"inputSchema\":{\"type\":\"object\"}}]}");
    } else if (!strcmp(method, "tools/call") && tool) {
        if (!strcmp(tool, "echo")) {
            text = mcp_json_str(mcp_json_get(args, "text"));
            len = mcp_json_len(mcp_json_get(args, "text"));
            sse = mcp_json_is_true(mcp_json_get(args, "sse"));
        } else if (!strcmp(tool, "big")) {
            len = (size_t)mcp_json_num(mcp_json_get(args, "size"));
            text = big = (char *)malloc(len + 1);
            for (i = 0; big && i < len; i++) big[i] = (char)('a' + i % 26);
        } else {
            len = (size_t)snprintf(buf, sizeof buf, "{\"connections\":%d,\"requests\":%d,\"deletes\":%d,\"bad\":%d}",
                                   stats.connections, stats.requests, stats.deletes, stats.bad);
            text = buf;
        }
        mcp_jw_key(&w, "result");
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "content");
        mcp_jw_arr_begin(&w);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
        mcp_jw_key(&w, "text"); mcp_jw_strn(&w, text ? text : "", text ? len : 0);
        mcp_jw_obj_end(&w);
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        free(big);
    } else {
        mcp_jw_key(&w, "error");
        raw(&w, "{\"code\":-32601,\"message\":\"Method not found\"}");
    }
    mcp_jw_obj_end(&w);
    out = mcp_jw_finish(&w, &len, NULL);
    snprintf(sid, sizeof sid, "Mcp-Session-Id: %s\r\n", SESSION);
    if (!out) {
        srv_respond(k, 500, "text/plain", NULL, "writer", 6);
    } else if (sse) {
        mcp_buf b;
        memset(&b, 0, sizeof b);
        mcp_buf_append(&b, "event: message\ndata: ", 21);
        mcp_buf_append(&b, out, len);
        mcp_buf_append(&b, "\n\n", 2);
        srv_respond(k, 200, "text/event-stream", NULL, b.data, b.len);
        mcp_buf_free(&b);
    } else {
        srv_respond(k, 200, "application/json", init ? sid : NULL, out, len);
    }
    mcp_free(out);
done:
    mcp_json_free(doc);
}

static void srv_request(sconn *k, const req *r)
{
    if (getenv("TLS_TEST_TRACE")) fprintf(stderr, "[srv] fd %d %s %.*s\n", k->fd, r->method,
                                           (int)(r->body_len < 70 ? r->body_len : 70), r->body ? r->body : "");
    if (strcmp(r->target, "/mcp")) srv_respond(k, 404, "text/plain", NULL, "not here", 8);
    else if (!strcmp(r->method, "POST")) srv_rpc(k, r);
    else if (!strcmp(r->method, "DELETE")) {
        stats.deletes += !strcmp(r->session, SESSION);
        srv_respond(k, 200, NULL, NULL, "", 0);
    } else srv_respond(k, 405, "text/plain", "Allow: POST, DELETE\r\n", "no", 2);
}

/* Reads what a connection has, answers every complete request; 0 when it is to be closed. */
static int srv_read(sconn *k)
{
    char buf[16384];
    size_t got;
    long used;
    req r;
    int e;
    for (;;) {
        if (SSL_read_ex(k->ssl, buf, sizeof buf, &got)) { mcp_buf_append(&k->in, buf, got); continue; }
        e = SSL_get_error(k->ssl, 0);
        if (e == SSL_ERROR_WANT_READ) break;
        if (e == SSL_ERROR_ZERO_RETURN) SSL_shutdown(k->ssl);          /* answer the close_notify */
        return 0;
    }
    while (k->in.len && (used = parse_req(k->in.data, k->in.len, &r)) != 0) {
        if (used < 0) return 0;
        srv_request(k, &r);
        memmove(k->in.data, k->in.data + used, k->in.len - (size_t)used);
        k->in.len -= (size_t)used;
    }
    return !k->closing;
}

static void serve_plain(int lfd)
{
    char buf[4096];
    static const char resp[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) continue;
        set_timeouts(fd, 3000);
        if (recv(fd, buf, sizeof buf, 0) > 0 && send(fd, resp, sizeof resp - 1, MSG_NOSIGNAL) > 0) {
            shutdown(fd, SHUT_WR);
            while (recv(fd, buf, sizeof buf, 0) > 0) {}                 /* until the client gives up */
        }
        close(fd);
    }
}

static void serve(int lfd, const cert *c)
{
    enum { MAXC = 64 };
    sconn ks[MAXC];
    struct pollfd pf[MAXC + 1];
    SSL_CTX *ctx = server_ctx(c);
    int n = 0, i, fd, r, e;
    if (!ctx) _exit(3);
    for (;;) {
        pf[0].fd = lfd; pf[0].events = POLLIN; pf[0].revents = 0;
        for (i = 0; i < n; i++) {
            pf[i + 1].fd = ks[i].fd; pf[i + 1].revents = 0;
            pf[i + 1].events = ks[i].hs == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
        }
        if (poll(pf, (nfds_t)n + 1, -1) < 0) continue;
        for (i = n - 1; i >= 0; i--) {
            if (!pf[i + 1].revents) continue;
            if (ks[i].hs) {                           /* handshakes don't block the others */
                if ((r = SSL_accept(ks[i].ssl)) == 1) { ks[i].hs = 0; stats.connections++; }
                else if ((e = SSL_get_error(ks[i].ssl, r)) == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
                    ks[i].hs = e;
                    continue;
                } else ks[i].closing = 1;
            }
            if (!ks[i].closing && srv_read(&ks[i])) continue;
            SSL_free(ks[i].ssl);
            close(ks[i].fd);
            mcp_buf_free(&ks[i].in);
            ks[i] = ks[--n];
        }
        if (!pf[0].revents || (fd = accept(lfd, NULL, NULL)) < 0) continue;
        if (n == MAXC) { close(fd); continue; }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        memset(&ks[n], 0, sizeof ks[n]);
        ks[n].fd = fd;
        ks[n].ssl = SSL_new(ctx);
        ks[n].hs = SSL_ERROR_WANT_READ;               /* the ClientHello comes first */
        SSL_set_fd(ks[n].ssl, fd);
        SSL_set_accept_state(ks[n].ssl);
        n++;
    }
}

/* Listens on 127.0.0.1, port 0; kind SRV_MCP serves with cert c, SRV_PLAIN answers in plain
   HTTP. 1 on success. */
static int server_start(server *s, int kind, const cert *c)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    memset(s, 0, sizeof *s);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 64) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) < 0) {
        if (lfd >= 0) close(lfd);
        return 0;
    }
    s->port = ntohs(a.sin_port);
    fflush(stdout); fflush(stderr);
    if ((s->pid = fork()) == 0) {
        signal(SIGPIPE, SIG_IGN);                     /* the child's own: clients come and go */
        if (kind == SRV_PLAIN) serve_plain(lfd);
        else serve(lfd, c);
        _exit(0);
    }
    close(lfd);
    return s->pid > 0;
}

static void server_stop(server *s)
{
    int st;
    if (s->pid <= 0) return;
    kill(s->pid, SIGKILL);
    CHECKF(waitpid(s->pid, &st, 0) == s->pid, "the server child was not reaped: %s", strerror(errno));
    s->pid = 0;
}

/* ---- client helpers ------------------------------------------------------------------------- */

static tls_openssl tls_right, tls_wrong, tls_system, tls_other;
static cert cert_local, cert_wrong, cert_other;

static mcp_client *new_client(const char *url, const mcp_tls *hook, int connect_ms, mcp_error *err)
{
    mcp_client_desc d;
    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP;
    d.url = url;
    d.tls = hook;
    d.client_name = "tls_test";
    d.client_version = "1";
    d.protocol_version = "2025-11-25";   /* this test's server is legacy only: no era probe */
    d.timeout_ms = 20000;
    d.connect_timeout_ms = connect_ms;
    return mcp_client_new(&d, err);
}

/* The text of a tool result's first content item, or NULL. */
static const char *result_text(const mcp_json_doc *doc, size_t *len)
{
    const mcp_json *t = mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0), "text");
    if (len) *len = mcp_json_len(t);
    return mcp_json_str(t);
}

/* The "stats" tool's numbers; -1 for each on failure. */
static void server_stats(mcp_client *c, int *connections, int *requests, int *deletes, int *bad)
{
    mcp_json_doc *res = NULL, *st = NULL;
    mcp_error e;
    const char *t;
    *connections = *requests = *deletes = *bad = -1;
    if (mcp_client_call_tool(c, "stats", "{}", &res, &e) != MCP_OK) { CHECKF(0, "stats: %s", e.message); return; }
    if ((t = result_text(res, NULL)) != NULL && (st = mcp_json_parse(t, strlen(t), NULL)) != NULL) {
        *connections = (int)mcp_json_num(mcp_json_get(mcp_json_root(st), "connections"));
        *requests = (int)mcp_json_num(mcp_json_get(mcp_json_root(st), "requests"));
        *deletes = (int)mcp_json_num(mcp_json_get(mcp_json_root(st), "deletes"));
        *bad = (int)mcp_json_num(mcp_json_get(mcp_json_root(st), "bad"));
    }
    mcp_json_free(st);
    mcp_json_free(res);
}

/* ---- scenarios ------------------------------------------------------------------------------ */

static void test_refused(void)
{
    guard g;
    mcp_error e;
    mcp_client *c;
    mcp_tls half;
    g_begin(&g, "https without a hook");
    memset(&e, 0, sizeof e);
    c = new_client("https://localhost:1/mcp", NULL, 0, &e);
    CHECK(c == NULL);
    EQST(e.status, MCP_ERR_INVALID, e);
    CHECKF(strstr(e.message, "TLS hook") != NULL, "message: %s", e.message);
    mcp_client_free(c);
    memset(&half, 0, sizeof half);                    /* a hook without open() is no hook */
    half.read = tls_right.hook.read; half.write = tls_right.hook.write;
    c = new_client("https://localhost:1/mcp", &half, 0, &e);
    CHECK(c == NULL);
    EQST(e.status, MCP_ERR_INVALID, e);
    CHECKF(strstr(e.message, "TLS hook") != NULL, "message: %s", e.message);
    mcp_client_free(c);
    g_end(&g);

    g_begin(&g, "CA file that cannot be loaded");
    {
        tls_openssl t;
        char path[600];
        snprintf(path, sizeof path, "%s/no-such-ca.pem", tmpdir);
        CHECK(!tls_openssl_init(&t, path, &e));
        EQST(e.status, MCP_ERR_INVALID, e);
        CHECKF(strstr(e.message, "no-such-ca.pem") != NULL, "message: %s", e.message);
        CHECK(t.ctx == NULL && t.hook.open == NULL);
    }
    g_end(&g);
}

static void test_connect(int quick)
{
    guard g;
    server s;
    mcp_client *c;
    mcp_error e;
    mcp_json_doc *res = NULL;
    mcp_call *calls[8];
    char url[128], args[128], want[64];
    const char *t;
    size_t len, i, big = quick ? 300000 : 5u << 20;
    int conns0, conns, reqs, dels, bad, k, ok;
    g_begin(&g, "connect, calls, reuse");
    if (!server_start(&s, SRV_MCP, &cert_local)) { CHECKF(0, "server did not start"); return; }
    snprintf(url, sizeof url, "https://localhost:%d/mcp", s.port);
    c = new_client(url, &tls_right.hook, 0, &e);
    CHECKF(c != NULL, "mcp_client_new: %s", e.message);
    if (!c) { server_stop(&s); return; }
    EQST(mcp_client_connect(c, &e), MCP_OK, e);
    CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name"))), "tls-test-server"));
    CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version"))), "1.2.3"));
    CHECK(!strcmp(nn(mcp_client_instructions(c)), "Served over TLS."));
    CHECK(mcp_client_protocol_version(c) != NULL);

    EQST(mcp_client_list_tools(c, &res, &e), MCP_OK, e);
    CHECK(mcp_json_len(mcp_json_get(mcp_json_root(res), "tools")) == 3);
    CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(res), "tools"), 0), "name"))), "echo"));
    mcp_json_free(res); res = NULL;

    EQST(mcp_client_call_tool(c, "echo", "{\"text\":\"hello \\u00e9 over TLS\"}", &res, &e), MCP_OK, e);
    t = result_text(res, NULL);
    CHECKF(!strcmp(nn(t), "hello \xc3\xa9 over TLS"), "echo: %s", nn(t));
    mcp_json_free(res); res = NULL;
    EQST(mcp_client_ping(c, &e), MCP_OK, e);

    /* one request after another: the connections are kept alive and reused. (mcp.h may have
       opened two so far: notifications/initialized waits for its 202 on the first while the
       next request starts on a second.) */
    server_stats(c, &conns0, &reqs, &dels, &bad);
    CHECKF(conns0 >= 1 && conns0 <= 2, "%d connections after connect and 3 requests", conns0);
    for (k = 0, ok = 0; k < 20; k++) {
        snprintf(args, sizeof args, "{\"text\":\"call %d\"}", k);
        snprintf(want, sizeof want, "call %d", k);
        if (mcp_client_call_tool(c, "echo", args, &res, &e) == MCP_OK && !strcmp(nn(result_text(res, NULL)), want)) ok++;
        else CHECKF(0, "call %d: %s", k, e.message);
        mcp_json_free(res); res = NULL;
    }
    CHECK(ok == 20);
    server_stats(c, &conns, &reqs, &dels, &bad);
    CHECKF(conns == conns0, "%d connections after 20 more sequential requests, %d before (want no new one: "
           "kept alive)", conns, conns0);
    CHECKF(reqs == 27, "the server saw %d requests, want 27", reqs);
    CHECKF(bad == 0, "%d requests without the session id or protocol version header", bad);

    /* an answer as an SSE stream */
    EQST(mcp_client_call_tool(c, "echo", "{\"text\":\"by SSE\",\"sse\":true}", &res, &e), MCP_OK, e);
    CHECKF(!strcmp(nn(result_text(res, NULL)), "by SSE"), "sse echo: %s", nn(result_text(res, NULL)));
    mcp_json_free(res); res = NULL;

    /* megabytes: hundreds of TLS records, read in many rounds */
    snprintf(args, sizeof args, "{\"size\":%zu}", big);
    EQST(mcp_client_call_tool(c, "big", args, &res, &e), MCP_OK, e);
    t = result_text(res, &len);
    CHECKF(t && len == big, "big: %zu bytes, want %zu", t ? len : 0, big);
    for (i = 0; t && i < len && t[i] == (char)('a' + i % 26); i++) {}
    CHECKF(t && i == big, "big: wrong byte at %zu", i);
    mcp_json_free(res); res = NULL;

    /* calls in parallel: a connection each */
    for (k = 0; k < 8; k++) {
        snprintf(args, sizeof args, "{\"text\":\"parallel %d\"}", k);
        calls[k] = mcp_client_send_tool(c, "echo", args, NULL, &e);
        CHECKF(calls[k] != NULL, "send %d: %s", k, e.message);
    }
    for (k = 0, ok = 0; k < 8; k++) {
        if (!calls[k]) continue;
        snprintf(want, sizeof want, "parallel %d", k);
        mcp_call_wait(calls[k], 20000);
        if (mcp_call_result(calls[k], &res, &e) == MCP_OK && !strcmp(nn(result_text(res, NULL)), want)) ok++;
        else CHECKF(0, "parallel call %d: %s", k, e.message);
        mcp_json_free(res); res = NULL;
        mcp_call_free(calls[k]);
    }
    CHECK(ok == 8);
    server_stats(c, &conns, &reqs, &dels, &bad);
    CHECKF(conns >= 2 && conns <= 9, "%d connections after 8 parallel calls", conns);
    CHECKF(bad == 0, "%d requests without the session id or protocol version header", bad);

    for (k = 0, ok = 0; k < 5; k++)                   /* the idle connections are reused */
        ok += mcp_client_ping(c, &e) == MCP_OK;
    CHECK(ok == 5);
    {
        int conns2;
        server_stats(c, &conns2, &reqs, &dels, &bad);
        CHECKF(conns2 == conns, "%d connections, %d before 6 more sequential requests", conns2, conns);
    }
    EQST(mcp_client_close(c), MCP_OK, e);
    mcp_client_free(c);
    server_stop(&s);
    g_end(&g);

    /* mcp_client_free DELETEs the session over TLS: a second client asks the server about it */
    g_begin(&g, "session DELETE at close");
    if (server_start(&s, SRV_MCP, &cert_local)) {
        mcp_client *c2;
        snprintf(url, sizeof url, "https://localhost:%d/mcp", s.port);
        c = new_client(url, &tls_right.hook, 0, &e);
        EQST(c ? mcp_client_connect(c, &e) : e.status, MCP_OK, e);
        mcp_client_free(c);
        c2 = new_client(url, &tls_right.hook, 0, &e);
        EQST(c2 ? mcp_client_connect(c2, &e) : e.status, MCP_OK, e);
        if (c2) server_stats(c2, &conns, &reqs, &dels, &bad);
        CHECKF(dels == 1, "the server saw %d DELETEs of the session, want 1", dels);
        CHECKF(conns >= 2 && conns <= 4, "%d connections for two clients", conns);
        mcp_client_free(c2);
        server_stop(&s);
    } else CHECKF(0, "server did not start");
    g_end(&g);
}

static void test_ip_literal(void)
{
    guard g;
    server s;
    mcp_client *c;
    mcp_error e;
    char url[128];
    g_begin(&g, "https://127.0.0.1 (IP SAN)");
    if (!server_start(&s, SRV_MCP, &cert_local)) { CHECKF(0, "server did not start"); return; }
    snprintf(url, sizeof url, "https://127.0.0.1:%d/mcp", s.port);
    c = new_client(url, &tls_right.hook, 0, &e);
    EQST(c ? mcp_client_connect(c, &e) : e.status, MCP_OK, e);
    EQST(c ? mcp_client_ping(c, &e) : e.status, MCP_OK, e);
    mcp_client_free(c);
    server_stop(&s);
    g_end(&g);
}

/* Connecting must fail during the handshake with status want and a message holding each of
   the words. */
static void expect_fail(const char *name, int kind, const cert *served, const char *host, const tls_openssl *t,
                        int connect_ms, mcp_status want, const char *w1, const char *w2)
{
    guard g;
    server s;
    mcp_client *c;
    mcp_error e;
    mcp_status st;
    char url[128];
    int64_t t0;
    g_begin(&g, name);
    if (!server_start(&s, kind, served)) { CHECKF(0, "server did not start"); return; }
    snprintf(url, sizeof url, "https://%s:%d/mcp", host, s.port);
    memset(&e, 0, sizeof e);
    c = new_client(url, &t->hook, connect_ms, &e);
    CHECKF(c != NULL, "mcp_client_new: %s", e.message);
    t0 = mcp_time_ms();
    st = c ? mcp_client_connect(c, &e) : MCP_ERR_INVALID;
    EQST(st, want, e);
    CHECKF(e.status == want, "err.status %d, want %d", (int)e.status, (int)want);
    CHECKF(strstr(e.message, "TLS") != NULL, "%s: the message does not name TLS: %s", name, e.message);
    CHECKF(!w1 || strstr(e.message, w1), "%s: the message does not say \"%s\": %s", name, w1, e.message);
    CHECKF(!w2 || strstr(e.message, w2), "%s: the message does not say \"%s\": %s", name, w2, e.message);
    CHECKF(mcp_time_ms() - t0 < 5000, "%s: took %lld ms", name, (long long)(mcp_time_ms() - t0));
    if (getenv("TLS_TEST_VERBOSE")) printf("#   %s\n", e.message);
    mcp_client_free(c);
    server_stop(&s);
    g_end(&g);
}

static void test_timeout(void)
{
    guard g;
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int lfd;
    mcp_client *c;
    mcp_error e;
    char url[128];
    int64_t t0, took;
    g_begin(&g, "handshake timeout");
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* listening but never accepting: TCP connects (the backlog), TLS never answers */
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 4) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) < 0) { CHECKF(0, "listen: %s", strerror(errno)); return; }
    snprintf(url, sizeof url, "https://localhost:%d/mcp", ntohs(a.sin_port));
    c = new_client(url, &tls_right.hook, 400, &e);
    t0 = mcp_time_ms();
    EQST(c ? mcp_client_connect(c, &e) : e.status, MCP_ERR_TIMEOUT, e);
    took = mcp_time_ms() - t0;
    CHECKF(took >= 300 && took < 3000, "the handshake gave up after %lld ms (connect timeout 400)", (long long)took);
    CHECKF(strstr(e.message, "TLS") && strstr(e.message, "in time"), "message: %s", e.message);
    if (getenv("TLS_TEST_VERBOSE")) printf("#   %s\n", e.message);
    mcp_client_free(c);
    close(lfd);
    g_end(&g);
}

static void test_server_killed(void)
{
    guard g;
    server s;
    mcp_client *c;
    mcp_error e;
    mcp_json_doc *res = NULL;
    mcp_status st;
    char url[128];
    g_begin(&g, "server killed mid-session");
    if (!server_start(&s, SRV_MCP, &cert_local)) { CHECKF(0, "server did not start"); return; }
    snprintf(url, sizeof url, "https://localhost:%d/mcp", s.port);
    c = new_client(url, &tls_right.hook, 2000, &e);
    EQST(c ? mcp_client_connect(c, &e) : e.status, MCP_OK, e);
    server_stop(&s);
    st = c ? mcp_client_call_tool(c, "echo", "{\"text\":\"anyone?\"}", &res, &e) : MCP_ERR_INVALID;
    CHECKF(st < 0 && e.message[0], "a call to a dead server: %s (%s)", mcp_status_str(st), e.message);
    mcp_json_free(res);
    mcp_client_free(c);                              /* close_notify / DELETE to nobody: no SIGPIPE */
    g_end(&g);
}

/* ---- the hook alone, over a socket pair ----------------------------------------------------- */

enum { PEER_CLEAN, PEER_CUT, PEER_GONE };

static void peer(int fd, int how)
{
    SSL_CTX *ctx = server_ctx(&cert_local);
    SSL *ssl = ctx ? SSL_new(ctx) : NULL;
    size_t n;
    if (!ssl) _exit(3);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1) _exit(4);
    if (how == PEER_GONE) _exit(0);
    if (!SSL_write_ex(ssl, "hello", 5, &n)) _exit(5);
    if (how == PEER_CLEAN) {
        SSL_shutdown(ssl);                              /* close_notify */
    }
    _exit(0);
}

static void test_hook_direct(void)
{
    static const char *names[] = { "hook: close_notify -> 0", "hook: cut -> -1", "hook: peer gone, no SIGPIPE" };
    int how;
    for (how = PEER_CLEAN; how <= PEER_GONE; how++) {
        guard g;
        int sv[2], st;
        pid_t pid;
        void *s;
        mcp_error e;
        char buf[64];
        size_t got = 0;
        long r = 1;
        struct pollfd pf;
        g_begin(&g, names[how]);
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) { CHECKF(0, "socketpair"); continue; }
        fflush(stdout); fflush(stderr);
        if ((pid = fork()) == 0) { close(sv[0]); peer(sv[1], how); }
        close(sv[1]);
        set_timeouts(sv[0], 5000);                       /* as mcp.h does: blocking, bounded */
        memset(&e, 0, sizeof e);
        s = tls_right.hook.open(tls_right.hook.user, sv[0], "localhost", &e);
        CHECKF(s != NULL, "open: %s", e.message);
        fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        if (s && how != PEER_GONE) {
            for (;;) {                                   /* "hello", then the end */
                r = tls_right.hook.read(s, buf + got, sizeof buf - got);
                if (r > 0) { got += (size_t)r; continue; }
                if (r != MCP_TLS_WANT_READ && r != MCP_TLS_WANT_WRITE) break;
                pf.fd = sv[0]; pf.events = r == MCP_TLS_WANT_READ ? POLLIN : POLLOUT;
                if (poll(&pf, 1, 5000) != 1) { CHECKF(0, "poll timed out"); break; }
            }
            CHECKF(got == 5 && !memcmp(buf, "hello", 5), "read %zu bytes", got);
            if (how == PEER_CLEAN) CHECKF(r == 0, "read after close_notify: %ld, want 0", r);
            else CHECKF(r < 0 && r != MCP_TLS_WANT_READ && r != MCP_TLS_WANT_WRITE, "read after a cut: %ld, want -1", r);
        }
        CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        if (s && how == PEER_GONE) {
            /* the peer is gone: a write and close_notify go to a closed socket (EPIPE);
               OpenSSL's own socket BIO would raise SIGPIPE and end this process here */
            r = tls_right.hook.write(s, "x", 1);
            if (r > 0) r = tls_right.hook.write(s, "y", 1);
            CHECKF(r < 0 && r != MCP_TLS_WANT_READ && r != MCP_TLS_WANT_WRITE, "write to a gone peer: %ld", r);
        }
        if (s) tls_right.hook.close(s);
        close(sv[0]);
        g_end(&g);
    }
    {   /* close() with the peer gone and nothing written before: close_notify alone */
        guard g;
        int sv[2], st;
        pid_t pid;
        void *s;
        mcp_error e;
        g_begin(&g, "hook: close to a gone peer");
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) { CHECKF(0, "socketpair"); return; }
        fflush(stdout); fflush(stderr);
        if ((pid = fork()) == 0) { close(sv[0]); peer(sv[1], PEER_GONE); }
        close(sv[1]);
        set_timeouts(sv[0], 5000);
        s = tls_right.hook.open(tls_right.hook.user, sv[0], "localhost", &e);
        CHECKF(s != NULL, "open: %s", e.message);
        CHECK(waitpid(pid, &st, 0) == pid);
        fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        if (s) tls_right.hook.close(s);                  /* EPIPE, not SIGPIPE */
        close(sv[0]);
        g_end(&g);
    }
}

int main(int argc, char **argv)
{
    mcp_error e;
    const char *base = getenv("TMPDIR");
    int quick = getenv("MCP_TEST_QUICK") && *getenv("MCP_TEST_QUICK") && strcmp(getenv("MCP_TEST_QUICK"), "0");
    (void)argc; (void)argv;
    signal(SIGPIPE, SIG_DFL);           /* a SIGPIPE anywhere ends the test before its summary */
    snprintf(tmpdir, sizeof tmpdir, "%s/mcp_tls_test.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    CHECK(make_cert(&cert_local, "localhost", "DNS:localhost,IP:127.0.0.1", "local.pem", 1));
    CHECK(make_cert(&cert_wrong, "localhost", "DNS:localhost,IP:127.0.0.1", "wrong.pem", 2));  /* same name, another key */
    CHECK(make_cert(&cert_other, "other.invalid", "DNS:other.invalid", "other.pem", 3));
    CHECKF(tls_openssl_init(&tls_right, cert_local.path, &e), "init: %s", e.message);
    CHECKF(tls_openssl_init(&tls_wrong, cert_wrong.path, &e), "init: %s", e.message);
    CHECKF(tls_openssl_init(&tls_system, NULL, &e), "init: %s", e.message);
    CHECKF(tls_openssl_init(&tls_other, cert_other.path, &e), "init: %s", e.message);

    if (t_fail == 0) {
        test_refused();
        test_connect(quick);
        test_ip_literal();
        expect_fail("another CA", SRV_MCP, &cert_local, "localhost", &tls_wrong, 0, MCP_ERR_PROTOCOL,
                    "certificate", NULL);
        expect_fail("the system's CAs", SRV_MCP, &cert_local, "localhost", &tls_system, 0, MCP_ERR_PROTOCOL,
                    "certificate", "self-signed");
        expect_fail("hostname mismatch", SRV_MCP, &cert_other, "localhost", &tls_other, 0, MCP_ERR_PROTOCOL,
                    "certificate", "hostname mismatch");
        expect_fail("IP address mismatch", SRV_MCP, &cert_other, "127.0.0.1", &tls_other, 0, MCP_ERR_PROTOCOL,
                    "certificate", "IP address mismatch");
        expect_fail("plain HTTP server", SRV_PLAIN, NULL, "localhost", &tls_right, 0, MCP_ERR_PROTOCOL,
                    "http://", NULL);
        test_timeout();
        test_server_killed();
        test_hook_direct();
    }

    tls_openssl_free(&tls_right);
    tls_openssl_free(&tls_wrong);
    tls_openssl_free(&tls_system);
    tls_openssl_free(&tls_other);
    free_cert(&cert_local);
    free_cert(&cert_wrong);
    free_cert(&cert_other);
    CHECKF(rmdir(tmpdir) == 0, "rmdir %s: %s", tmpdir, strerror(errno));
    return TEST_DONE();
}
