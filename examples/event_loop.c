/* event_loop - mcp.h inside a program that owns its loop: a "game" that ticks 60 frames a second
   keeps that rate while MCP calls are in flight.

   Between frames the loop waits in its own poll() on the fds that mcp_client_pollfds hands out
   (as many as mcp_client_pollfd_count says: over HTTP one per busy connection), until the next
   frame or mcp_client_next_timeout, whichever comes first; then mcp_client_poll(c, 0) reads,
   writes and fires callbacks without waiting. Calls are started with mcp_client_send_tool and
   checked once a frame with mcp_call_status; the server is stopped with mcp_client_close_begin,
   the same loop finishing the close: nothing blocks.

       event_loop [SERVER-COMMAND]      (default: the demo server next to this program) */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 60

static long frame;
static int failures;

/* Waits in poll() for mcp.h's fds until `due` (ms, mcp_time_ms) or its next deadline, then
   lets it work without waiting. Returns what mcp_client_poll returned. */
static mcp_status serve(mcp_client *c, int64_t due)
{
    static mcp_pollfd *mfds;                         /* grown to mcp_client_pollfd_count */
    static struct pollfd *pfds;
    static int cap;
    int want = mcp_client_pollfd_count(c), n, i;
    int wait = (int)(due - mcp_time_ms()), next = mcp_client_next_timeout(c);
    if (want > cap) {
        void *m = realloc(mfds, (size_t)want * sizeof *mfds), *p;
        if (m) mfds = (mcp_pollfd *)m;
        p = realloc(pfds, (size_t)want * sizeof *pfds);
        if (p) pfds = (struct pollfd *)p;
        if (m && p) cap = want;
    }
    n = mcp_client_pollfds(c, mfds, cap);
    if (wait < 0) wait = 0;
    if (next >= 0 && next < wait) wait = next;
    for (i = 0; i < n; i++) { pfds[i].fd = mfds[i].fd; pfds[i].events = mfds[i].events; pfds[i].revents = 0; }
    poll(pfds, (nfds_t)n, wait);
    return mcp_client_poll(c, 0);                    /* I/O, callbacks, deadlines: never waits */
}

static void on_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    (void)user; (void)call;
    printf("frame %4ld  slow: progress %g/%g %s\n", frame, progress, total, message ? message : "");
}

/* Once a call has finished: print its text or its error, free it, return 1. */
static int finished(mcp_call **call, const char *name)
{
    mcp_json_doc *result;
    mcp_error err;
    if (!*call || mcp_call_status(*call) == MCP_AGAIN) return 0;
    if (mcp_call_result(*call, &result, &err) == MCP_OK) {
        const mcp_json *first = mcp_json_at(mcp_json_get(mcp_json_root(result), "content"), 0);
        printf("frame %4ld  %s answered: %s\n", frame, name, mcp_json_str(mcp_json_get(first, "text")));
        mcp_json_free(result);
    } else {
        printf("frame %4ld  %s failed: %s\n", frame, name, err.message);
        failures++;
    }
    mcp_call_free(*call);
    *call = NULL;
    return 1;
}

int main(int argc, char **argv)
{
    char server[4096];
    const char *slash = strrchr(argv[0], '/');
    mcp_client_desc desc;
    mcp_call_opts opts;
    mcp_error err;
    mcp_client *c;
    mcp_call *slow, *echo;
    int64_t start, prev, longest = 0;
    int in_flight = 2;
    long last_frame = -1;

    snprintf(server, sizeof server, "%.*sdemo_server", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    memset(&desc, 0, sizeof desc);
    desc.command = argc > 1 ? argv[1] : server;
    /* connect blocks, once, before the loop; mcp_client_connect_begin returns a call instead */
    if (!(c = mcp_client_new(&desc, &err)) || mcp_client_connect(c, &err) != MCP_OK) {
        fprintf(stderr, "event_loop: %s\n", err.message);
        mcp_client_free(c);
        return 1;
    }

    memset(&opts, 0, sizeof opts);
    opts.on_progress = on_progress;                  /* asks the server for progress */
    slow = mcp_client_send_tool(c, "slow", "{\"steps\": 5, \"ms\": 300}", &opts, &err);
    echo = mcp_client_send_tool(c, "echo", "{\"text\": \"hello from frame 0\"}", NULL, &err);
    if (!slow || !echo) { fprintf(stderr, "event_loop: %s\n", err.message); return 1; }
    printf("frame    0  sent slow and echo; the loop goes on at %d frames/s\n", FPS);

    start = prev = mcp_time_ms();
    for (frame = 1; frame != last_frame; frame++) {
        int64_t due = start + (int64_t)frame * 1000 / FPS, now;
        while ((now = mcp_time_ms()) < due) serve(c, due);   /* until the frame is due */
        if (now - prev > longest) longest = now - prev;
        prev = now;

        /* the frame: game logic and drawing would go here */
        if (finished(&slow, "slow")) in_flight--;
        if (finished(&echo, "echo")) in_flight--;
        if (frame % FPS == 0)
            printf("frame %4ld  %.1f s, %.1f frames/s, %d call%s in flight\n", frame, (now - start) / 1000.0,
                   frame * 1000.0 / (double)(now - start), in_flight, in_flight == 1 ? "" : "s");
        if (in_flight == 0 && last_frame < 0) last_frame = frame + FPS / 2;   /* half a second more */
    }
    printf("%ld frames in %.2f s: %.1f frames/s (target %d), the longest frame took %lld ms\n", frame - 1,
           (prev - start) / 1000.0, (frame - 1) * 1000.0 / (double)(prev - start), FPS, (long long)longest);
    /* stop the server without blocking: the frames go on while it exits */
    if (mcp_client_close_begin(c) != MCP_AGAIN) printf("the server stopped at once\n");
    else {
        long closing = 0;
        int closed = 0;
        for (; !closed; closing++) {                 /* a frame at a time, until it is closed */
            int64_t due = mcp_time_ms() + 1000 / FPS;
            while (!closed && mcp_time_ms() < due) closed = serve(c, due) == MCP_ERR_CLOSED;
        }
        printf("the server stopped within %ld frame%s\n", closing, closing == 1 ? "" : "s");
    }
    mcp_client_free(c);                              /* nothing left to wait for */
    return failures ? 1 : 0;
}
