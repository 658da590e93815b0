/* >>transport.once: the one-shot HTTP exchange (mcp__once_*) and the loopback listener
   (mcp__loop_*), internal to mcp.h, so this file is its own implementation. Every server is in
   this process: the listener itself (the exchange GETs its /callback), or a tiny non-blocking
   server driven in the same poll loop (tsrv), or, for the blocking conveniences, a forked
   child.   Usage: standalone_exchange [DATA_DIR]   (DATA_DIR is not read) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include "test.h"

/* ---- a tiny server, driven step by step beside the exchange --------------------------------- */

typedef struct tsrv {
    int lfd, cfd;
    unsigned port;
    int accept_never;                /* listen, but never accept (the connect still completes) */
    const char *reply; size_t rlen, sent;
    char got[16384]; size_t glen;    /* the request as it arrived */
} tsrv;

static int listen_any(unsigned *port)            /* a listening socket on 127.0.0.1:<free port> */
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET; sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0) return -1;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    *port = ntohs(sa.sin_port);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

static void tsrv_start(tsrv *s, const char *reply, size_t rlen)
{
    memset(s, 0, sizeof *s);
    s->cfd = -1;
    s->reply = reply; s->rlen = rlen ? rlen : strlen(reply);
    s->lfd = listen_any(&s->port);
    CHECK(s->lfd >= 0);
}

static void tsrv_stop(tsrv *s)
{
    if (s->cfd >= 0) close(s->cfd);
    if (s->lfd >= 0) close(s->lfd);
}

/* Accepts, reads the head (and a body by Content-Length), sends the reply, closes. */
static void tsrv_step(tsrv *s)
{
    long r;
    char *e;
    if (s->lfd < 0 || s->accept_never) return;
    if (s->cfd < 0 && !s->sent) {
        if ((s->cfd = accept(s->lfd, NULL, NULL)) < 0) return;
        fcntl(s->cfd, F_SETFL, O_NONBLOCK);
    }
    if (s->cfd < 0) return;
    while ((r = (long)recv(s->cfd, s->got + s->glen, sizeof s->got - 1 - s->glen, 0)) > 0) s->glen += (size_t)r;
    s->got[s->glen] = 0;
    if (!(e = strstr(s->got, "\r\n\r\n"))) return;
    if (strstr(s->got, "Content-Length: ") &&
        s->glen < (size_t)(e + 4 - s->got) + strtoul(strstr(s->got, "Content-Length: ") + 16, NULL, 10)) return;
    while (s->sent < s->rlen && (r = (long)send(s->cfd, s->reply + s->sent, s->rlen - s->sent, MSG_NOSIGNAL)) > 0)
        s->sent += (size_t)r;
    if (s->sent == s->rlen || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        close(s->cfd); s->cfd = -1; s->sent = s->rlen;
    }
}

/* Drives the exchange (and the server, and the listener when given) in one poll loop. */
static mcp_status drive(mcp__once *o, tsrv *s, mcp__loop *l, mcp_error *err)
{
    mcp_status st = MCP_AGAIN, lst = MCP_AGAIN;
    int spins = 0;
    while (st == MCP_AGAIN && spins++ < 100000) {
        mcp_pollfd f[3];
        struct pollfd pf[6];
        int n = 0, i, k;
        if (mcp__once_pollfd(o, &f[0])) { pf[n].fd = f[0].fd; pf[n++].events = f[0].events; }
        if (l && lst == MCP_AGAIN)
            for (k = mcp__loop_pollfds(l, f), i = 0; i < k; i++) { pf[n].fd = f[i].fd; pf[n++].events = f[i].events; }
        if (s && s->lfd >= 0 && !s->accept_never) { pf[n].fd = s->cfd >= 0 ? s->cfd : s->lfd; pf[n++].events = POLLIN | (s->cfd >= 0 ? POLLOUT : 0); }
        poll(pf, (nfds_t)n, 20);
        if (s) tsrv_step(s);
        if (l && lst == MCP_AGAIN) { lst = mcp__loop_io(l, 0, NULL); CHECK(lst >= 0); }
        st = mcp__once_io(o, 0, err);
    }
    return st;
}

static mcp_status exchange(mcp__once *o, tsrv *s, const char *method, const char *path, const char *const *h,
                           const char *body, const mcp__once_limits *lim, int timeout_ms, mcp_error *err)
{
    char url[256];
    mcp_status st;
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", s->port, path);
    st = mcp__once_start(o, method, url, h, body, body ? strlen(body) : 0, NULL, timeout_ms, lim, err);
    if (st != MCP_OK) return st;
    return drive(o, s, NULL, err);
}

static int cloexec_nonblock(int fd)
{
    return fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC) && (fcntl(fd, F_GETFL) & O_NONBLOCK);
}

/* ---- the exchange against the listener -------------------------------------------------------- */

TEST_CASE(listener_answers_exchange)
{
    mcp__loop l;
    mcp__once o;
    mcp_error err;
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    char url[128];
    const char *ct;
    mcp_status st;
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    CHECK(mcp__loop_port(&l) > 0);
    CHECK(cloexec_nonblock(l.fd));
    CHECK(getsockname(l.fd, (struct sockaddr *)&sa, &sl) == 0 && sa.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
    snprintf(url, sizeof url, "http://127.0.0.1:%u/callback?code=x&state=s1", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "GET", url, NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_OK);
    CHECK(cloexec_nonblock(o.fd));
    st = drive(&o, NULL, &l, &err);
    CHECKF(st == MCP_OK, "%d %s", st, err.message);
    CHECK(o.status == 200);
    CHECK(o.body.data && strstr(o.body.data, "You can close this window") != NULL);
    CHECK(o.body.data[o.body.len] == 0);
    ct = mcp_http_resp_header(&o.resp, "content-type", 0);
    CHECK(ct && !strncmp(ct, "text/html", 9));
    CHECK(mcp_http_resp_header(&o.resp, "connection", 0) && !strcmp(mcp_http_resp_header(&o.resp, "connection", 0), "close"));
    CHECK(l.target && !strcmp(l.target, "/callback?code=x&state=s1"));
    CHECK(mcp__loop_io(&l, 0, NULL) == MCP_OK);           /* asked again: the same */
    CHECK(mcp__loop_due(&l) == -1 && mcp__once_due(&o) == -1);
    mcp__once_free(&o);
    mcp__loop_free(&l);
}

/* A request that is not a GET gets a 400 and the listener goes on; the next GET ends it. */
TEST_CASE(listener_refuses_then_goes_on)
{
    mcp__loop l;
    mcp__once o;
    mcp_error err;
    char url[128];
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/callback", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "POST", url, NULL, "code=1", 6, NULL, 5000, NULL, &err) == MCP_OK);
    CHECK(drive(&o, NULL, &l, &err) == MCP_OK);
    CHECK(o.status == 400);
    CHECK(o.body.data && strstr(o.body.data, "not a request") != NULL);
    CHECK(l.what && strstr(l.what, "not a GET"));
    CHECK(l.target == NULL && mcp__loop_io(&l, 0, NULL) == MCP_AGAIN);
    mcp__once_free(&o);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/cb?code=2", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "GET", url, NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_OK);
    CHECK(drive(&o, NULL, &l, &err) == MCP_OK && o.status == 200);
    CHECK(l.target && !strcmp(l.target, "/cb?code=2"));
    mcp__once_free(&o);
    mcp__loop_free(&l);
}

static int raw_connect(unsigned port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET; sa.sin_port = htons((unsigned short)port); sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) { close(fd); return -1; }
    return fd;
}

/* A connection that sends nothing (a browser's spare one) gives way to the next. */
TEST_CASE(listener_idle_connection_gives_way)
{
    mcp__loop l;
    mcp__once o;
    mcp_error err;
    char url[128];
    int idle, i;
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    idle = raw_connect(mcp__loop_port(&l));
    CHECK(idle >= 0);
    for (i = 0; i < 5 && l.cfd < 0; i++) mcp__loop_io(&l, 20, NULL);
    CHECK(l.cfd >= 0 && cloexec_nonblock(l.cfd));         /* the accepted one, too */
    CHECK(mcp__loop_due(&l) > mcp_time_ms());
    snprintf(url, sizeof url, "http://127.0.0.1:%u/callback?code=y", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "GET", url, NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_OK);
    CHECK(drive(&o, NULL, &l, &err) == MCP_OK && o.status == 200);
    CHECK(l.target && !strcmp(l.target, "/callback?code=y"));
    close(idle);
    mcp__once_free(&o);
    mcp__loop_free(&l);
}

/* A client that sends its request and goes away before the reply: no SIGPIPE, no crash. */
TEST_CASE(listener_client_gone)
{
    mcp__loop l;
    mcp_error err;
    const char *req = "GET /callback?code=z HTTP/1.1\r\nHost: x\r\n\r\n";
    int fd, i;
    struct linger lg;
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    fd = raw_connect(mcp__loop_port(&l));
    CHECK(fd >= 0 && send(fd, req, strlen(req), 0) == (long)strlen(req));
    lg.l_onoff = 1; lg.l_linger = 0;                       /* close with a reset */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
    for (i = 0; i < 50 && mcp__loop_io(&l, 20, NULL) == MCP_AGAIN; i++) {}
    CHECK(mcp__loop_io(&l, 0, NULL) == MCP_OK);           /* the code came: that is what counts */
    CHECK(l.cfd < 0 && l.target && !strcmp(l.target, "/callback?code=z"));
    mcp__loop_free(&l);
}

TEST_CASE(listener_port_in_use)
{
    mcp__loop a, b;
    mcp_error err;
    char want[128];
    CHECK(mcp__loop_open(&a, 0, &err) == MCP_OK);
    CHECK(mcp__loop_open(&b, mcp__loop_port(&a), &err) == MCP_ERR_IO);
    snprintf(want, sizeof want, "Could not listen on 127.0.0.1:%u: %s.", mcp__loop_port(&a), strerror(EADDRINUSE));
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    CHECK(mcp__loop_open(&b, 70000, &err) == MCP_ERR_IO);
    mcp__loop_free(&b);                                   /* harmless after a failed open */
    mcp__loop_free(&a);
}

TEST_CASE(listener_wait_times_out)
{
    mcp__loop l;
    mcp_error err;
    char want[160];
    int64_t t0;
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    t0 = mcp_time_ms();
    CHECK(mcp__loop_wait(&l, 100, &err) == MCP_ERR_TIMEOUT);
    CHECK(mcp_time_ms() - t0 >= 100);
    snprintf(want, sizeof want, "No browser came back to http://127.0.0.1:%u/ within 100 ms.", mcp__loop_port(&l));
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    mcp__loop_free(&l);
}

/* The blocking conveniences, each against a forked peer. */
TEST_CASE(blocking_wait_and_run)
{
    mcp__loop l;
    mcp__once o;
    mcp_error err;
    char url[128];
    pid_t pid;
    int status = 0;
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/callback?code=forked", mcp__loop_port(&l));
    fflush(stdout); fflush(stderr);
    if ((pid = fork()) == 0) {                            /* the browser */
        mcp__once c;
        mcp_status st = mcp__once_run(&c, "GET", url, NULL, NULL, 0, NULL, 5000, NULL, NULL);
        int ok = st == MCP_OK && c.status == 200;
        mcp__once_free(&c);
        _exit(ok ? 0 : 1);
    }
    CHECK(mcp__loop_wait(&l, 5000, &err) == MCP_OK);
    CHECK(l.target && !strcmp(l.target, "/callback?code=forked"));
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    mcp__loop_free(&l);
    /* and the other way round: the listener in the child, mcp__once_run here */
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/x", mcp__loop_port(&l));
    fflush(stdout); fflush(stderr);
    if ((pid = fork()) == 0) {
        int ok = mcp__loop_wait(&l, 5000, NULL) == MCP_OK && !strcmp(l.target, "/x");
        mcp__loop_free(&l);
        _exit(ok ? 0 : 1);
    }
    mcp__loop_free(&l);
    CHECKF(mcp__once_run(&o, "GET", url, NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_OK && o.status == 200,
           "%d %s", o.status, err.message);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    mcp__once_free(&o);
}

/* ---- the exchange against tsrv ------------------------------------------------------------------ */

TEST_CASE(exchange_request_and_answer)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    const char *h[] = { "Accept: application/json", "Content-Type: application/x-www-form-urlencoded", NULL };
    tsrv_start(&s, "HTTP/1.1 201 Created\r\nContent-Length: 7\r\nContent-Type: application/json\r\n"
                   "X-Two: a\r\nX-Two: b\r\n\r\n{\"a\":1}", 0);
    CHECK(exchange(&o, &s, "POST", "/token", h, "grant_type=authorization_code&code=SECRET", NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 201 && o.body.len == 7 && !strcmp(o.body.data, "{\"a\":1}"));
    CHECK(!strcmp(mcp_http_resp_header(&o.resp, "x-two", 1), "b"));
    CHECK(strstr(s.got, "POST /token HTTP/1.1\r\n") == s.got);
    CHECK(strstr(s.got, "\r\nConnection: close\r\n") != NULL);
    CHECK(strstr(s.got, "\r\nAccept: application/json\r\n") != NULL);
    CHECK(strstr(s.got, "\r\nContent-Length: 41\r\n") != NULL);
    CHECK(strstr(s.got, "\r\n\r\ngrant_type=authorization_code&code=SECRET") != NULL);
    mcp__once_free(&o);
    mcp__once_free(&o);                                   /* twice: harmless */
    tsrv_stop(&s);
}

TEST_CASE(exchange_chunked_and_until_close)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    tsrv_start(&s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: 1\r\n\r\n", 0);
    CHECK(exchange(&o, &s, "GET", "/.well-known/oauth-authorization-server", NULL, NULL, NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 200 && !strcmp(o.body.data, "hello world"));
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", 0);
    CHECK(exchange(&o, &s, "GET", "/", NULL, NULL, NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 200 && !strcmp(o.body.data, "until the end"));
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.1 204 No Content\r\n\r\n", 0);
    CHECK(exchange(&o, &s, "DELETE", "/reg/1", NULL, NULL, NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 204 && o.body.len == 0 && o.body.data && !o.body.data[0]);
    mcp__once_free(&o); tsrv_stop(&s);
}

TEST_CASE(exchange_error_statuses_are_answers)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    tsrv_start(&s, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot here.", 0);
    CHECK(exchange(&o, &s, "GET", "/missing", NULL, NULL, NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 404 && !strcmp(o.body.data, "not here."));
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 35\r\n\r\n{\"error\":\"server_error\",\"x\":\"yyyy\"}", 0);
    CHECK(exchange(&o, &s, "POST", "/token", NULL, "a=b", NULL, 5000, &err) == MCP_OK);
    CHECK(o.status == 500 && strstr(o.body.data, "server_error"));
    CHECK(!strcmp(o.resp.reason, "Internal Server Error"));
    mcp__once_free(&o); tsrv_stop(&s);
}

TEST_CASE(exchange_body_over_limit)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    mcp__once_limits lim = { 0, 10 };
    char want[200], *big;
    size_t n = (size_t)3 << 20;                            /* over the 1 MiB default */
    tsrv_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n01234567890", 0);
    CHECK(exchange(&o, &s, "GET", "/meta?secret=1", NULL, NULL, &lim, 5000, &err) == MCP_ERR_LIMIT);
    snprintf(want, sizeof want, "The answer from 127.0.0.1:%u to GET /meta has a body larger than the limit of 10 bytes.", s.port);
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    CHECK(o.fd < 0);                                      /* the connection is closed at once */
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n6\r\n678901\r\n0\r\n\r\n", 0);
    CHECK(exchange(&o, &s, "GET", "/", NULL, NULL, &lim, 5000, &err) == MCP_ERR_LIMIT);
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.0 200 OK\r\n\r\n0123456789", 0);   /* exactly the limit: fine */
    CHECK(exchange(&o, &s, "GET", "/", NULL, NULL, &lim, 5000, &err) == MCP_OK && o.body.len == 10);
    mcp__once_free(&o); tsrv_stop(&s);
    big = (char *)malloc(n + 64);
    CHECK(big != NULL);
    if (!big) return;
    memset(big, 'x', n + 64);
    memcpy(big, "HTTP/1.0 200 OK\r\n\r\n", 19);          /* until close, no length said */
    tsrv_start(&s, big, n);
    CHECK(exchange(&o, &s, "GET", "/", NULL, NULL, NULL, 5000, &err) == MCP_ERR_LIMIT);
    CHECK(strstr(err.message, "limit of 1048576 bytes") != NULL);
    mcp__once_free(&o); tsrv_stop(&s);
    free(big);
}

TEST_CASE(exchange_bad_answers)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    char want[200];
    tsrv_start(&s, "SPDY/9 200 OK\r\n\r\n", 0);
    CHECK(exchange(&o, &s, "GET", "/p?code=SECRET", NULL, NULL, NULL, 5000, &err) == MCP_ERR_PARSE);
    CHECKF(strstr(err.message, "to GET /p is not usable HTTP: ") && !strstr(err.message, "SECRET"), "%s", err.message);
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 0);
    CHECK(exchange(&o, &s, "GET", "/", NULL, NULL, NULL, 5000, &err) == MCP_ERR_PARSE);
    mcp__once_free(&o); tsrv_stop(&s);
    tsrv_start(&s, "", 0);
    s.rlen = 0;                                           /* closes without a byte */
    CHECK(exchange(&o, &s, "GET", "/q?code=SECRET", NULL, NULL, NULL, 5000, &err) == MCP_ERR_CLOSED);
    snprintf(want, sizeof want, "The connection to 127.0.0.1:%u closed before an answer to GET /q arrived.", s.port);
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    mcp__once_free(&o); tsrv_stop(&s);
}

TEST_CASE(exchange_connection_refused)
{
    mcp__once o;
    mcp_error err;
    unsigned port = 0;
    int fd = listen_any(&port);
    char url[128], want[160];
    mcp_status st;
    close(fd);                                            /* a port nobody listens on */
    snprintf(url, sizeof url, "http://127.0.0.1:%u/token?code=SECRET", port);
    st = mcp__once_start(&o, "POST", url, NULL, "code=SECRET", 11, NULL, 5000, NULL, &err);
    if (st == MCP_OK) st = drive(&o, NULL, NULL, &err);  /* refused now, or on the first io */
    CHECK(st == MCP_ERR_IO && err.sys_errno == ECONNREFUSED);
    snprintf(want, sizeof want, "Could not connect to 127.0.0.1:%u: %s.", port, strerror(ECONNREFUSED));
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    mcp__once_free(&o);
}

TEST_CASE(exchange_timeout)
{
    tsrv s;
    mcp__once o;
    mcp_error err;
    char want[200];
    int64_t t0 = mcp_time_ms();
    tsrv_start(&s, "", 0);
    s.accept_never = 1;                                   /* the backlog takes the connect */
    CHECK(exchange(&o, &s, "GET", "/slow?state=SECRET", NULL, NULL, NULL, 200, &err) == MCP_ERR_TIMEOUT);
    CHECK(mcp_time_ms() - t0 >= 200);
    snprintf(want, sizeof want, "127.0.0.1:%u gave no answer to GET /slow within 200 ms.", s.port);
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    CHECK(mcp__once_io(&o, 0, &err) == MCP_ERR_TIMEOUT && !strcmp(err.message, want));   /* asked again */
    mcp__once_free(&o); tsrv_stop(&s);
}

TEST_CASE(exchange_refuses_before_connecting)
{
    static const char *const bad_hdr[] = { "Bad\r\nHeader: x", NULL };
    mcp__once o;
    mcp_error err;
    CHECK(mcp__once_start(&o, "GET", "https://auth.example.com/authorize?code=SECRET", NULL, NULL, 0, NULL, 5000,
                          NULL, &err) == MCP_ERR_INVALID);
    CHECKF(!strcmp(err.message, "Could not GET /authorize on auth.example.com:443: https:// needs a TLS hook "
                   "(mcp_tls), and none was given."), "%s", err.message);
    mcp__once_free(&o);
    CHECK(mcp__once_start(&o, "GET", "http://h/x?code=SEC RET", NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_ERR_INVALID);
    CHECKF(strstr(err.message, "\"http://h/x?...\"") && !strstr(err.message, "SEC"), "%s", err.message);
    CHECK(mcp__once_start(&o, "GET", "ftp://h/x?code=SECRET", NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_ERR_INVALID);
    CHECKF(!strstr(err.message, "SECRET"), "%s", err.message);
    CHECK(mcp__once_start(&o, "GET", "http://h/x", bad_hdr, NULL, 0, NULL, 5000, NULL, &err) == MCP_ERR_INVALID);
    CHECK(mcp__once_start(&o, "GET", "http://no-such-host.invalid/x", NULL, NULL, 0, NULL, 5000, NULL, &err) == MCP_ERR_IO);
    CHECKF(!strncmp(err.message, "Could not resolve no-such-host.invalid: ", 40), "%s", err.message);
}

/* ---- https:// through the TLS hook: an identity "TLS" (plain bytes) against the listener --- */

static int fake_opened, fake_closed, fake_blocking, fake_fail;

static void *fake_open(void *user, int fd, const char *host, mcp_error *err)
{
    int *s;
    (void)user;
    fake_blocking = !(fcntl(fd, F_GETFL) & O_NONBLOCK);   /* the handshake runs blocking */
    if (fake_fail || strcmp(host, "127.0.0.1")) {
        snprintf(err->message, sizeof err->message, "certificate verify failed");
        return NULL;
    }
    if (!(s = (int *)malloc(sizeof *s))) return NULL;
    *s = fd;
    fake_opened++;
    return s;
}

static long fake_read(void *s, void *buf, size_t len)
{
    long r = (long)recv(*(int *)s, buf, len > 7 ? 7 : len, 0);    /* small reads: more rounds */
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? MCP_TLS_WANT_READ : r;
}

static long fake_write(void *s, const void *buf, size_t len)
{
    long r = (long)send(*(int *)s, buf, len > 5 ? 5 : len, MSG_NOSIGNAL);
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? MCP_TLS_WANT_WRITE : r;
}

static void fake_close(void *s) { free(s); fake_closed++; }

TEST_CASE(exchange_https_through_the_hook)
{
    mcp_tls tls = { NULL, fake_open, fake_read, fake_write, fake_close };
    mcp__loop l;
    mcp__once o;
    mcp_error err;
    char url[128], want[200];
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    snprintf(url, sizeof url, "https://127.0.0.1:%u/callback?code=t", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "GET", url, NULL, NULL, 0, &tls, 5000, NULL, &err) == MCP_OK);
    CHECKF(drive(&o, NULL, &l, &err) == MCP_OK && o.status == 200, "%s", err.message);
    CHECK(l.target && !strcmp(l.target, "/callback?code=t"));
    CHECK(fake_opened == 1 && fake_closed == 1 && fake_blocking);
    mcp__once_free(&o);
    mcp__loop_free(&l);
    fake_fail = 1;                                        /* a handshake that fails */
    CHECK(mcp__loop_open(&l, 0, &err) == MCP_OK);
    snprintf(url, sizeof url, "https://127.0.0.1:%u/x", mcp__loop_port(&l));
    CHECK(mcp__once_start(&o, "GET", url, NULL, NULL, 0, &tls, 5000, NULL, &err) == MCP_OK);
    CHECK(drive(&o, NULL, &l, &err) == MCP_ERR_IO);
    snprintf(want, sizeof want, "TLS handshake with 127.0.0.1:%u failed: certificate verify failed", mcp__loop_port(&l));
    CHECKF(!strcmp(err.message, want), "%s", err.message);
    CHECK(fake_closed == 1);
    mcp__once_free(&o);
    mcp__loop_free(&l);
    fake_fail = 0;
}

/* ---- the request head, sans I/O ---------------------------------------------------------------- */

/* Feeds text whole (step 0) or in pieces of every split point; returns the verdict, the same
   each way, and checks it is. */
static mcp_status feed_split(const char *text, size_t n, char *target, size_t tmax)
{
    static mcp__loop_head h;
    mcp_status whole, st;
    size_t cut, used, u2;
    (void)used;
    mcp__loop_head_reset(&h);
    whole = mcp__loop_head_feed(&h, text, n, &used);
    if (target) snprintf(target, tmax, "%s", whole == MCP_OK ? h.target : "");
    CHECK(whole == MCP_OK || whole == MCP_AGAIN || h.what != NULL);
    for (cut = 0; cut <= n; cut++) {
        mcp__loop_head_reset(&h);
        st = mcp__loop_head_feed(&h, text, cut, &u2);
        if (st == MCP_AGAIN) st = mcp__loop_head_feed(&h, text + cut, n - cut, &u2);
        if (st != whole || (whole == MCP_OK && strcmp(h.target, target ? target : h.target))) {
            CHECKF(0, "split at %lu of \"%.40s\": %d, whole: %d", (unsigned long)cut, text, st, whole);
            break;
        }
    }
    return whole;
}

TEST_CASE(head_good)
{
    char t[256];
    mcp__loop_head h;
    size_t used;
    const char *a = "GET /callback?code=abc&state=xyz HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
                    "User-Agent: Mozilla/5.0 (X11)\r\nAccept: text/html,*/*;q=0.8\r\nX-Empty:\r\n\r\n";
    CHECK(feed_split(a, strlen(a), t, sizeof t) == MCP_OK && !strcmp(t, "/callback?code=abc&state=xyz"));
    CHECK(feed_split("GET / HTTP/1.0\n\n", 16, t, sizeof t) == MCP_OK && !strcmp(t, "/"));
    CHECK(feed_split("GET /a%20b HTTP/1.1\r\n\r\n", 23, t, sizeof t) == MCP_OK && !strcmp(t, "/a%20b"));
    CHECK(feed_split("GET /x HTTP/1.1\r\nHost: h\r\n", 26, NULL, 0) == MCP_AGAIN);   /* not over yet */
    /* bytes after the head are not taken */
    mcp__loop_head_reset(&h);
    CHECK(mcp__loop_head_feed(&h, "GET /y HTTP/1.1\r\n\r\nGET /z", 25, &used) == MCP_OK && used == 19);
    CHECK(!strcmp(h.target, "/y"));
    CHECK(mcp__loop_head_feed(&h, "more", 4, &used) == MCP_OK && used == 0);   /* decided: stays */
}

TEST_CASE(head_malformed)
{
    static const char *const bad[] = {
        "POST /cb HTTP/1.1\r\n\r\n", "get /cb HTTP/1.1\r\n\r\n", "GET cb HTTP/1.1\r\n\r\n",
        "GET  /cb HTTP/1.1\r\n\r\n", "GET /cb HTTP/2.0\r\n\r\n", "GET /cb HTTP/1.1 \r\n\r\n",
        "GET /cb\r\n\r\n", "GET /cb HTTP/1.1\rX\r\n\r\n", "GET /c\tb HTTP/1.1\r\n\r\n", "GET /c\x80 HTTP/1.1\r\n\r\n",
        "GET http://h/cb HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n", "\r\nGET /cb HTTP/1.1\r\n\r\n",
        "GET /cb HTTP/1.1\r\nNo colon\r\n\r\n", "GET /cb HTTP/1.1\r\n folded: x\r\n\r\n",
        "GET /cb HTTP/1.1\r\nA: b\rc\r\n\r\n", "GET /cb HTTP/1.1\r\n: empty\r\n\r\n",
        "GET /cb HTTP/1.1\r\nA: \x01\r\n\r\n", "GET /cb HTTP/1.1\r\nA b: c\r\n\r\n", "\n\n", "x\n\n", NULL
    };
    char big[9000];
    int i;
    mcp__loop_head h;
    size_t used;
    for (i = 0; bad[i]; i++) CHECKF(feed_split(bad[i], strlen(bad[i]), NULL, 0) == MCP_ERR_PARSE, "%s", bad[i]);
    CHECK(feed_split("GET /\0 HTTP/1.1\r\n\r\n", 19, NULL, 0) == MCP_ERR_PARSE);
    /* 8 KiB at most, whole head included */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /", 5);
    CHECK(feed_split(big, sizeof big, NULL, 0) == MCP_ERR_LIMIT);
    memcpy(big + 8192 - 15, " HTTP/1.1\r\n\r\n", 13);    /* exactly 8190 bytes: fine */
    CHECK(feed_split(big, 8190, NULL, 0) == MCP_OK);
    memset(big + 5, 'a', sizeof big - 5);
    memcpy(big + 8192 - 13, " HTTP/1.1\r\n\r\n", 13);    /* 8192 */
    CHECK(feed_split(big, 8192, NULL, 0) == MCP_OK);
    memset(big + 5, 'a', sizeof big - 5);
    memcpy(big + 8192 - 12, " HTTP/1.1\r\n\r\n", 13);    /* 8193 */
    CHECK(feed_split(big, 8193, NULL, 0) == MCP_ERR_LIMIT);
    mcp__loop_head_reset(&h);
    CHECK(mcp__loop_head_feed(&h, "x", 1, &used) == MCP_AGAIN && used == 1);
    CHECK(mcp__loop_head_feed(&h, "\n\n", 2, &used) == MCP_ERR_PARSE && h.what != NULL);
    CHECK(mcp__loop_head_feed(&h, "GET / HTTP/1.1\r\n\r\n", 18, &used) == MCP_ERR_PARSE);   /* stays */
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_DFL);                              /* a SIGPIPE would end the test */
    return test_main(argc, argv);
}
