/* http_srv.h - the HTTP test server (tests/servers/http_server.c) as the HTTP tests drive it:
   start it on a free port, read its /debug pages, stop it. Included by test_http_client.c and
   test_modern_http.c after mcp.h, test.h (its nap()), their system headers and server_path. */
#ifndef TESTS_HTTP_SRV_H
#define TESTS_HTTP_SRV_H

typedef struct srv {
    pid_t pid;
    int in;                          /* its stdin: closing it stops the server */
    int port;
    char url[128], sse_url[128], origin[64];
} srv;

/* Starts the server with these flags; returns 0 if it did not start (a failed check). */
static int srv_start(srv *s, const char *const *args)
{
    int in[2], out[2], n = 0, i;
    char *argv[16], line[64];
    ssize_t r;
    size_t got = 0;
    memset(s, 0, sizeof *s);
    s->in = -1;
    if (pipe(in) < 0 || pipe(out) < 0) { CHECK(!"pipe"); return 0; }
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    argv[n++] = server_path;
    argv[n++] = (char *)"0";
    for (i = 0; args && args[i] && n < 15; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    s->pid = fork();
    if (s->pid == 0) {
        dup2(in[0], 0); dup2(out[1], 1);
        close(in[0]); close(out[1]);
        execv(server_path, argv);
        _exit(127);
    }
    close(in[0]); close(out[1]);
    s->in = in[1];
    while (got < sizeof line - 1) {                      /* "PORT n\n" */
        r = read(out[0], line + got, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 || line[got] == '\n') break;
        got++;
    }
    line[got] = 0;
    close(out[0]);
    if (sscanf(line, "PORT %d", &s->port) != 1) {
        CHECKF(0, "the test server did not start (it said \"%s\")", line);
        close(s->in); s->in = -1;
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
        return 0;
    }
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d/mcp", s->port);
    snprintf(s->sse_url, sizeof s->sse_url, "http://127.0.0.1:%d/sse", s->port);
    snprintf(s->origin, sizeof s->origin, "127.0.0.1:%d", s->port);
    return 1;
}

/* Stops it by closing its stdin; checks it exits with status 0 (SIGKILL after 3 s). */
static void srv_stop(srv *s)
{
    int status = 0, i;
    pid_t r = 0;
    if (s->pid <= 0) return;
    close(s->in);
    for (i = 0; i < 300 && (r = waitpid(s->pid, &status, WNOHANG)) == 0; i++) nap(10);
    if (r == 0) { kill(s->pid, SIGKILL); waitpid(s->pid, &status, 0); }
    CHECKF(r == s->pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the test server did not exit cleanly when its stdin closed (status %d)", status);
    s->pid = 0;
}

/* GET /debug/PAGE over a plain socket; the body, malloc'ed (NULL on failure). */
static char *dbg(const srv *s, const char *page)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char req[256], *body = NULL, *b;
    size_t len = 0, cap = 0;
    ssize_t r;
    if (fd < 0) return NULL;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)s->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { close(fd); return NULL; }
    snprintf(req, sizeof req, "GET /debug/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", page);
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) { close(fd); return NULL; }
    for (;;) {
        if (cap - len < 65536) { cap = cap * 2 + 65536; body = (char *)realloc(body, cap); }
        r = read(fd, body + len, cap - len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    if (!body) return NULL;
    body[len] = 0;
    if (!(b = strstr(body, "\r\n\r\n"))) { free(body); return NULL; }
    memmove(body, b + 4, strlen(b + 4) + 1);
    return body;
}

static mcp_json_doc *dbg_json(const srv *s, const char *page)
{
    char *t = dbg(s, page);
    mcp_json_doc *d = t ? mcp_json_parse(t, strlen(t), NULL) : NULL;
    free(t);
    CHECKF(d != NULL, "/debug/%s did not answer with JSON", page);
    return d;
}

static long stat_of(const srv *s, const char *key)
{
    mcp_json_doc *d = dbg_json(s, "stats");
    long v = (long)mcp_json_num(mcp_json_get(mcp_json_root(d), key));
    mcp_json_free(d);
    return v;
}

TEST_UNUSED static void srv_reset(const srv *s) { free(dbg(s, "reset")); }

/* The request log: records whose field `key` equals `val` (NULL: any), counted; the nth one
   (0-based) copied out as JSON text when out is given. */
TEST_UNUSED static int log_find(const srv *s, const char *key, const char *val, int nth, char *out, size_t n)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i;
    int count = 0;
    if (out && n) out[0] = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL; i++) {
        const char *v = mcp_json_str(mcp_json_get(r, key));
        if (val && (!v || strcmp(v, val))) continue;
        if (count == nth && out) {
            char *t = mcp_json_dump(r, 0, NULL);
            snprintf(out, n, "%s", t ? t : "");
            mcp_free(t);
        }
        count++;
    }
    mcp_json_free(d);
    return count;
}

#endif
