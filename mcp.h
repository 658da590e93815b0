/* mcp.h - v0.1 - Model Context Protocol client in one C99 header - MIT or public domain

   Do this:
       #define MCP_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.
   Every other file includes it plainly and sees only the declarations.

       // in one file, say mcp.c:
       #define MCP_IMPLEMENTATION
       #include "mcp.h"

   libc and POSIX only. Nothing else to link, no global mutable state.

   =============================================================================================
   CONTENTS
   =============================================================================================
       1. Overview
       2. Quick start
       3. Build options
       4. Layers (grep for the >>anchors)
       5. Errors
       6. Memory
       7. Threads
       8. JSON notes (strictness, numbers, limits)
       9. Connect
       10. Calls
       11. Callbacks and requests from the server
       12. Non-blocking use
       13. Transports
       14. Protocol versions
       15. Authorization
       16. Host: many servers from the user's config files
       17. Revisions
       18. License (end of file)

   =============================================================================================
   1. OVERVIEW
   =============================================================================================
   The Model Context Protocol (MCP) is how AI applications reach the outside world: they talk
   to MCP servers, programs or web services that offer tools (functions a model can call),
   resources (data it can read) and prompts (templates a user can pick), in JSON-RPC 2.0 over
   a child process's stdin/stdout or over HTTP.

   mcp.h lets a C or C++ program be an MCP client: start a local server or reach a remote one,
   list and call its tools, read its resources, get its prompts, and answer what the server
   asks back (roots, sampling, elicitation). It is written for programs that cannot or will
   not carry Node.js or Python: game engines, editors, command-line tools, daemons, embedded
   and static builds.

   It is built from layers that are useful on their own (section 4): a strict, fast JSON
   parser and writer, sans-I/O framers for JSON lines, HTTP/1.1 and Server-Sent Events, a
   JSON-RPC engine, the stdio and HTTP transports, and the client. The client offers blocking
   calls, and the same calls without blocking for programs that own their event loop.

   Developed and tested on Linux (glibc and musl; gcc, clang, tcc; as C99 and as C++). The
   code is POSIX; other Unix systems are untested; Windows is not supported.

   =============================================================================================
   2. QUICK START
   =============================================================================================
   An MCP client that starts the demo server of the repository (make builds it as
   build/demo_server), calls its "add" tool and prints the answer:

       #define MCP_IMPLEMENTATION
       #include "mcp.h"
       #include <stdio.h>
       #include <string.h>

       int main(int argc, char **argv) {
           mcp_client_desc desc;
           memset(&desc, 0, sizeof desc);                      // zero fields mean defaults
           desc.command = argc > 1 ? argv[1] : "build/demo_server";    // a server over stdio
           mcp_error err;
           mcp_json_doc *result = NULL;
           mcp_client *c = mcp_client_new(&desc, &err);
           if (!c || mcp_client_connect(c, &err) != MCP_OK ||    // starts it, says hello
               mcp_client_call_tool(c, "add", "{\"a\": 2, \"b\": 40}", &result, &err) != MCP_OK) {
               fprintf(stderr, "quickstart: %s\n", err.message);
               mcp_client_free(c);
               return 1;
           }
           const mcp_json *server = mcp_client_server_info(c);   // {"name": ..., "version": ...}
           const mcp_json *content = mcp_json_get(mcp_json_root(result), "content");
           printf("%s says 2 + 40 = %s\n", mcp_json_str(mcp_json_get(server, "name")),
                  mcp_json_str(mcp_json_get(mcp_json_at(content, 0), "text")));
           mcp_json_free(result);
           mcp_client_free(c);                                   // stops the server
           return 0;
       }

   It prints:

       demo_server says 2 + 40 = 42

   The same program is the quick start of README.md; tests/test_readme.sh compiles both as
   strict C99 and as C++, runs them and compares their output with the line above.

   =============================================================================================
   3. BUILD OPTIONS
   =============================================================================================
   Define these before including mcp.h (in the implementation file, or everywhere when the
   option changes declarations).

   | macro                   | default   | meaning                                           |
   |-------------------------|-----------|---------------------------------------------------|
   | MCP_IMPLEMENTATION      | -         | compile the implementation in this file           |
   | MCP_STATIC              | -         | every function static: a private copy in this file|
   | MCPAPI                  | extern    | prefix of every declaration                       |
   | MCP_MALLOC(sz, ctx)     | malloc    | allocator hooks: define all three or none (else   |
   | MCP_REALLOC(p, sz, ctx) | realloc   | #error). ctx is the alloc_ctx of mcp_json_opts    |
   | MCP_FREE(p, ctx)        | free      | for parses, NULL everywhere else                  |
   | MCP_ASSERT(x)           | assert(x) | internal consistency checks                       |
   | MCP_NO_STDIO            | -         | leave out the stdio transport                     |
   | MCP_NO_HTTP             | -         | leave out the HTTP transports, HTTP and SSE layers|
   | MCP_NO_AUTH             | -         | leave out the authorization layer (a 401 is then  |
   |                         |           | an error with its challenge) and its helpers      |
   |                         |           | mcp_sha256, mcp_base64url, mcp_random             |
   | MCP_NO_HOST             | -         | leave out the host layer (config files, many      |
   |                         |           | servers, one tool list)                           |
   | MCP_NO_VECTOR           | -         | scan strings 8 bytes a step (SWAR) instead of 64  |
   |                         |           | with GCC/Clang vector types (SSE2, NEON)          |
   | MCP_NO_AVX2             | -         | x86-64: no AVX2 scanner (used where the CPU has   |
   |                         |           | it, whatever -m flags), SSE2 only; also the cure  |
   |                         |           | for a link error about __cpu_model (old GCC)      |
   | MCP_JSON_MAX_DEPTH      | 512       | JSON nesting limit (per parse: mcp_json_opts)     |
   | MCP_JSON_MAX_SIZE       | 128 MiB   | JSON input size limit (per parse; cap 4 GiB - 1)  |
   | MCP_JSONL_MAX_LINE      | 16 MiB    | longest JSON line (stdio message)                 |
   | MCP_HTTP_MAX_HEAD       | 64 KiB    | HTTP status line + headers                        |
   | MCP_HTTP_MAX_HEADERS    | 100       | number of HTTP headers                            |
   | MCP_SSE_MAX_EVENT       | 16 MiB    | one SSE line or one event's data                  |

   With both MCP_NO_STDIO and MCP_NO_HTTP the client is left out too: JSON and JSON-RPC remain
   (and, without MCP_NO_AUTH, the authorization layer's helpers; without MCP_NO_HOST, JSON with
   comments).

   Limits and timeouts of a client are fields of its mcp_client_desc (0 means the default):

   | field              | default | meaning                                                   |
   |--------------------|---------|-----------------------------------------------------------|
   | max_message        | 16 MiB  | largest message accepted, on every transport              |
   | timeout_ms         | 30000   | per request, initialize included; < 0: none               |
   | connect_timeout_ms | 10000   | HTTP: TCP connect and TLS handshake                       |
   | close_timeout_ms   | 2000    | stdio close: each wait, before SIGTERM and before SIGKILL |
   | max_queued         | 64 MiB  | stdio: request bytes the server has not read yet; beyond, |
   |                    |         | new requests fail with MCP_ERR_LIMIT                      |
   | max_connections    | 16      | HTTP: connections carrying requests at once; more wait in |
   |                    |         | order, their timeouts running. Streams (the GET stream,   |
   |                    |         | HTTP+SSE's, mcp_client_listen's) have 8 more of their own |
   | cache_max          | 8 MiB   | bytes of results kept while fresh (section 10); over it   |
   |                    |         | the oldest go; MCP_CACHE_OFF: none kept                   |

   and a call may set its own (mcp_call_opts, section 12: timeout_ms, max_total_ms, and
   no_cache, which asks the server even when a fresh result is kept).

   The implementation uses POSIX (fork, poll, sockets, clock_gettime). If the implementation
   file includes system headers before mcp.h, define _POSIX_C_SOURCE 200809L (or _GNU_SOURCE)
   at its very top; mcp.h defines it itself when it comes first.

   =============================================================================================
   4. LAYERS
   =============================================================================================
   One section per layer, in this order, in the declarations and in the implementation. Each
   opens with a banner you can grep for: ">>base", ">>json", ...

   | # | anchor      | layer                                                           |
   |---|-------------|-----------------------------------------------------------------|
   | 1 | >>base      | status codes, mcp_error, allocator, buffers, clock, random      |
   |   |             | source, SHA-256, base64url                                      |
   | 2 | >>json      | DOM parser, accessors, iteration, writer (mcp_jw), dump         |
   | 3 | >>jsonl     | newline-delimited JSON framer (stdio)                           |
   | 4 | >>http      | URL parser, request writer, HTTP/1.1 response parser,           |
   |   |             | WWW-Authenticate parser, form (query) codec                     |
   | 5 | >>sse       | Server-Sent Events parser                                       |
   | 6 | >>rpc       | JSON-RPC 2.0: classify, ids, pending table, deadlines           |
   | 7 | >>transport | one table of operations (struct mcp_transport) and its contract; |
   |   |  .stdio     |   the server as a child process, JSON lines over pipes          |
   |   |  .http      |   Streamable HTTP: connections, exchanges, session, redirects   |
   |   |  .sse       |   HTTP+SSE (2024-11-05), on the same exchanges; TLS via a hook  |
   |   |  .once      |   a one-shot HTTP exchange, a loopback listener (for sign-in)   |
   | 8 | >>auth      | the authorization flow (OAuth 2.1, PKCE), sans-I/O: challenge,  |
   |   |             | discovery, registration, browser, tokens, refresh               |
   | 9 | >>client    | the MCP client: protocol 2024-11-05 to 2025-11-25 and 2026-07-28 |
   |   |             | (the stateless era), both at once:                              |
   |   |  .cache     |   results kept while fresh (ttlMs), per client                  |
   |   |  .send      |   building and sending messages                                 |
   |   |  .calls     |   calls: start, re-send, fail, cancel, wait                     |
   |   |  .receive   |   responses, requests, notifications, dispatch, timeouts        |
   |   |  .mrtr      |   multi round-trip requests (2026-07-28 input_required)         |
   |   |  .modern    |   2026-07-28 over HTTP: headers, x-mcp-header, -32020           |
   |   |  .transport |   what the transport reports, and every decision about it       |
   |   |  .auth      |   running the authorization flow for requests that met 401/403  |
   |   |  .connect   |   probe, initialize, fallback to HTTP+SSE, new session          |
   |   |  .object    |   create, close, poll, accessors                                |
   |   |  .typed     |   the blocking and typed calls                                  |
   |10 | >>host      | the servers a user configured, many clients in one loop:        |
   |   |  .config    |   config files: mcpServers, VS Code's servers; JSON with comments |
   |   |  .servers   |   states, parallel connects, reconnects, the cache file         |
   |   |  .lists     |   one tool, prompt and resource list under qualified names      |
   |   |  .calls     |   calls routed by qualified name                                |

   Layers 2-6 never touch the OS: bytes go in, values or events come out. Their types are
   public, caller-owned, zero-initialisable structs, usable without the client (the demo
   server of the repository is written on the JSON and JSONL layers). Layer 7 is the only one
   that does: the client reaches it through its table alone, and a program may bring its
   own transport through the same table (section 13).

   =============================================================================================
   5. ERRORS
   =============================================================================================
   Functions that can fail return an mcp_status (MCP_OK = 0, errors negative) or NULL, and
   fill an optional mcp_error: the status class, and `message`, a complete sentence you can
   show a user. Every `mcp_error *` argument may be NULL. mcp_status_str() names a status.
   Branch on the status; the classes mean the same on every transport:

   MCP_ERR_CLOSED     the connection is over: the server exited (also during connect), EOF,
                      the HTTP+SSE stream ended, or you closed the client; every later call
                      on it gets the same
   MCP_ERR_IO         an OS call failed: starting the server, connect refused, name
                      resolution (sys_errno is set)
   MCP_ERR_TIMEOUT    the call's deadline passed
   MCP_ERR_CANCELLED  the call was cancelled (mcp_call_cancel, mcp_client_interrupt)
   MCP_ERR_HTTP       a non-2xx HTTP status (http_status is set)
   MCP_ERR_RPC        the server answered with a JSON-RPC error (rpc_code is set)
   MCP_ERR_PROTOCOL   the server broke the protocol: an unsupported protocol version, a
                      stream that ended without the answer, a wrong content type, a bad or
                      cross-origin endpoint event
   MCP_ERR_AUTH       authorization failed, was declined, timed out waiting for the browser,
                      or needs the user: what a program shows a "sign in" button for
   MCP_ERR_PARSE      malformed bytes where a message had to be: invalid JSON, bad HTTP
                      framing; for mcp_json_parse, malformed input text
   MCP_ERR_LIMIT      a size or depth limit: message, line, headers, nesting
   MCP_ERR_INVALID    the caller's own input: a bad argument or URL, a header with CR or LF,
                      https:// without a TLS hook, params that are not a JSON object, a method
                      whose capability the server did not declare, writer misuse (a value
                      where a key is due, invalid UTF-8, NaN)
   MCP_ERR_NOMEM      allocation failed

   Sentences look like these:
       Transport closed
       Server exited with status 3 during initialize: Error: cannot open config.json
       Could not connect to 127.0.0.1:1: Connection refused.
       HTTP 401: Unauthorized (WWW-Authenticate: Bearer realm="mcp")
       MCP error -32602: Unknown tool: nope
       No response received for request ID 7
       Request timeout after 30000ms
       JSON parse error at line 3, column 14 (byte 52): expected ',' or '}'
   JSON lines and columns count from 1 (columns in characters), byte offsets from 0. A server
   that dies during connect is reported with its exit status and its most telling stderr line.

   A tool that ran and failed is not an error of the call: mcp_client_call_tool returns MCP_OK
   and the result has "isError": true, an answer meant for the model.

   =============================================================================================
   6. MEMORY
   =============================================================================================
   - A parsed document (mcp_json_doc) owns every value and string in it: they live in the
     document's arena (a few large blocks, no allocation per value) and stay valid until
     mcp_json_free(doc). A document never points into the caller's input buffer. Every
     result the client hands you is such a document, with the response's "result" as root.
   - Text the library returns (mcp_json_dump, mcp_jw_finish) is freed with mcp_free().
   - A writer (mcp_jw) is a caller-owned struct. mcp_jw_finish hands over the text and
     releases the writer; mcp_jw_free() releases a writer you abandon.
   - A client (mcp_client_new) is freed with mcp_client_free(), which closes it first.
   - A call (mcp_client_send, mcp_client_send_tool, mcp_client_connect_begin) is freed with
     mcp_call_free(), also after its client was freed; freeing a call in flight cancels it.
   - A request from the server (on_request) is freed by its reply (mcp_request_reply or
     mcp_request_reply_error); requests still unanswered are freed by mcp_client_free.
   - Strings and arrays in mcp_client_desc are copied by mcp_client_new; desc.tls and what
     desc.user points to are not, and must outlive the client. Params and arguments are
     used before the call returns.
   - What the client hands out (mcp_client_server_info, mcp_client_protocol_version, ...)
     lives until mcp_client_free; callback arguments live until the callback returns.
   - Results the client keeps (section 10) hold at most desc.cache_max bytes, as compact
     text; one handed out from them is a document of its own, yours like any other.
   - Every free function accepts NULL. Memory comes from MCP_MALLOC/MCP_REALLOC/MCP_FREE.

   =============================================================================================
   7. THREADS
   =============================================================================================
   No global state. Different objects may be used on different threads at the same time; one
   object belongs to one thread at a time. A client, its calls and its requests count as one
   object: use them from one thread (another may take over once the first has stopped).
   Callbacks run on that thread, inside the client's functions, never from another thread or
   a signal handler. mcp_client_interrupt is the one call meant for another context (a signal
   handler): it only sets a flag. A parsed document is immutable: any number of threads may
   read it at once.

   =============================================================================================
   8. JSON NOTES
   =============================================================================================
   - Strict RFC 8259: one value with optional surrounding whitespace; no comments, trailing
     commas, NaN, leading zeros, single quotes or byte order mark. mcp_json_opts.comments
     relaxes the first two, for files people write (config files): // to the end of the line
     and block comments wherever whitespace may stand, a comma before ] or }; an unclosed
     block comment is an error. Strict parsing does not pay for it: such a text is made
     strict first, in a copy (comments and trailing commas turned into spaces, so offsets,
     lines and columns stay those of the text), then parsed as any other.
   - Strings are validated UTF-8 (overlong forms, encoded surrogates, code points above
     U+10FFFF and truncated sequences are refused). \u escapes are decoded, surrogate pairs
     combined, lone surrogates refused. "\u0000" is kept: use mcp_json_len() for lengths.
   - Numbers: an integer literal that fits in int64 is kept exactly (mcp_json_int64); every
     other number is the correctly rounded double (round-half-even), computed without strtod
     and so independent of the process locale. A number too large for a double (1e400) is
     refused with MCP_ERR_PARSE, because it could not be written back. mcp_json_int64 also
     answers 1 for a double that is exactly a whole number within int64 (1e18, 2.0), and 0
     for one rounded from another literal (-9223372036854775809, 9007199254740993e0; the
     double stays as it is). The writer prints
     doubles in the shortest-or-nearly form that reads back to the same bits, always with a '.'
     or an exponent, so they stay doubles.
   - Objects keep their members in order, duplicates included; mcp_json_get() returns the
     last member with that key (as JavaScript does).
   - Accessors accept NULL and values of the wrong type and then return NULL or 0, so a chain
     such as mcp_json_str(mcp_json_get(mcp_json_at(content, 0), "text")) is safe.
   - Limits: nesting depth (default 512) and input size (default 128 MiB, at most 4 GiB - 1),
     per call through mcp_json_parse_ex(). The parser is iterative: a million-deep input
     fails with MCP_ERR_LIMIT, it cannot overflow the stack.
   - Whatever mcp_json_parse accepts, mcp_json_dump writes back, and that text parses to an
     equal value (mcp_json_equal).

   =============================================================================================
   9. CONNECT
   =============================================================================================
   Zero an mcp_client_desc, fill in what you need, create the client (mcp_client_new checks
   the description and starts nothing), then connect (mcp_client_connect starts or reaches
   the server and runs the handshake; on MCP_OK the client is ready).

   A local server, over stdio (transport MCP_STDIO, the default):

       const char *args[] = { "-y", "@modelcontextprotocol/server-everything", NULL };
       const char *env[] = { "LOG_LEVEL=debug", "HTTP_PROXY", NULL };  // set one, unset one
       desc.command = "npx";              // looked up on PATH
       desc.args = args;                  // after the command, NULL-ended
       desc.env = env;                    // changes to our environment; NULL: inherit it
       desc.cwd = "/srv/project";         // NULL: ours

   The server runs in its own process group. Its stderr is captured (on_stderr shows it); a
   line may come a few answers after the answer it preceded (mcp.h reads stdout first and
   looks at stderr at least every 16 answers, and whenever it waits), never later than close.
   Closing the client closes the server's stdin, waits, sends SIGTERM to the group, waits,
   sends SIGKILL, and reaps it. mcp.h never raises SIGPIPE in the host (it keeps a read end of
   the server's stdin pipe open) and never changes its signal dispositions or mask. A server
   that closes its stdin but keeps running shows as calls that time out.

   A remote server, over Streamable HTTP (MCP_HTTP) or the older HTTP+SSE (MCP_SSE, with the
   URL of the server's event stream):

       const char *headers[] = { "Authorization: Bearer s3cr3t", NULL };
       desc.transport = MCP_HTTP;
       desc.url = "http://127.0.0.1:3000/mcp";
       desc.headers = headers;            // "Name: value", sent with every request

   https:// needs desc.tls, a TLS hook (section 13). A server that answers 401 wants its
   users to sign in: desc.auth runs the authorization flow (section 15); a token the program
   has already goes in desc.headers.

   Messages the server sends on its own (log messages, list_changed and resource updates,
   its requests) reach on_notification and on_request while the program polls: blocking
   calls poll, and between calls an idle program calls mcp_client_poll (or watches
   mcp_client_pollfds). Where they arrive: stdio, the server's stdout; Streamable HTTP
   before 2026-07-28, the GET event stream, which the client opens after the handshake (a
   server that answers it 405 offers none: nothing is said; desc.http_listen = -1 never
   opens it), and the SSE answers of POSTs; HTTP+SSE, its event stream; 2026-07-28, only
   during a request (its _meta logLevel) and on mcp_client_listen streams.

   A URL given as MCP_HTTP whose POST initialize is answered 400, 404 or 405 (without a
   2026-07-28 error) is tried as HTTP+SSE, the 2024-11-05 transport, at the same URL:
   mcp_client_transport(c, &why) then returns MCP_SSE and why says "POST answered 404".

   Also in the description: client_name and client_version (default "mcp.h" and the library's
   version), protocol_version (section 14), the timeouts and max_message (section 3), the
   callbacks and capabilities (section 11).

   After connecting: mcp_client_protocol_version (the negotiated version),
   mcp_client_server_info ({"name", "version", ...}), mcp_client_server_capabilities and
   mcp_client_instructions (NULL if none), mcp_client_transport (the transport in use).
   mcp_client_close ends the connection (calls in flight fail with "Transport closed"), with
   the waits described above; mcp_client_close_now ends it without them, for a server being
   abandoned after a timeout or Ctrl-C (stdio: SIGTERM to the group at once); mcp_client_free
   closes (politely, unless already closed) and frees.

   =============================================================================================
   10. CALLS
   =============================================================================================
   Every call blocks until the answer, an error or the timeout, and returns the response's
   "result" as a document (mcp_json_free it). Params and arguments are JSON objects as text.

       mcp_client_list_tools(c, &doc, &err)                     // {"tools": [...]}
       mcp_client_call_tool(c, "echo", "{\"text\": \"hi\"}", &doc, &err)
                                                   // {"content": [...], "isError"?, ...}
       mcp_client_list_resources(c, &doc, &err)                 // {"resources": [...]}
       mcp_client_list_resource_templates(c, &doc, &err)        // {"resourceTemplates": ...}
       mcp_client_read_resource(c, "demo://readme", &doc, &err) // {"contents": [...]}
       mcp_client_subscribe(c, uri, &err), mcp_client_unsubscribe(c, uri, &err)
       mcp_client_list_prompts(c, &doc, &err)                   // {"prompts": [...]}
       mcp_client_get_prompt(c, "greet", "{\"name\": \"Ada\"}", &doc, &err)
       mcp_client_complete(c, "{\"type\": \"ref/prompt\", \"name\": \"greet\"}", "name", "A",
                           NULL, &doc, &err)                    // {"completion": {...}}
       mcp_client_set_log_level(c, "debug", &err)
       mcp_client_ping(c, &err)
       mcp_client_request(c, method, params_json, &doc, &err)   // any request
       mcp_client_notify(c, method, params_json, &err)          // any notification

   Lists follow nextCursor to the end and return every item in one array. A method whose
   capability the server did not declare (tools, resources, resources.subscribe, prompts,
   completions, logging) fails at once with MCP_ERR_INVALID, the generic request too. The
   JSON writer (mcp_jw_*) builds params from your own strings with the escaping done.

   Tasks. A server may run a long call as a task: it answers at once with a handle, and the
   client follows it to the end. From the program's side it is still one call: blocking calls
   return the final result, mcp_call_status is MCP_AGAIN while the task works, mcp_call_cancel
   cancels the task on the server (tasks/cancel), and input the task needs goes to on_request
   like any request from the server. Both forms are followed: 2025-11-25's (the client asks
   for a task where the server declares tasks.requests.tools.call and the tool's
   execution.taskSupport is "required", or "optional" with opts.task; "forbidden" never; it
   reads tools/list first if it has not seen it) and the 2026-07-28 extension
   io.modelcontextprotocol/tasks (declared in every request unless desc.no_tasks; the server
   decides). The client polls tasks/get at the server's pollInterval (kept between 100 ms and
   30 s). Each poll has the call's timeout; the whole wait has opts.max_total_ms, else no
   limit but the task's TTL: a task still running past it fails with MCP_ERR_PROTOCOL, one the
   server no longer knows with MCP_ERR_RPC and the server's error, a task the server cancelled
   with MCP_ERR_CANCELLED, each sentence naming the task.

       static void status(void *user, mcp_call *call, const char *task, const char *state,
                          const char *message)
       {
           fprintf(stderr, "task %s: %s %s\n", task, state, message ? message : "");
       }
       mcp_call_opts o;
       memset(&o, 0, sizeof o);
       o.on_task = status;                        // "working Gathering sources...", ...
       o.max_total_ms = 600000;                   // wait ten minutes at most
       mcp_call *call = mcp_client_send_tool(c, "simulate-research-query",
                                             "{\"topic\": \"cats\"}", &o, &err);
       mcp_call_wait(call, -1);                   // or poll it from your loop
       if (mcp_call_result(call, &doc, &err) != MCP_OK) fprintf(stderr, "%s\n", err.message);
       printf("task id, to attach later: %s\n", mcp_call_task_id(call));
       mcp_call_free(call);

   mcp_client_attach_task(c, id, &o, &err) follows a task started earlier (by a run of the
   program that stopped, say) and ends with its result; mcp_client_list_tasks lists a 2025-11-25
   server's tasks.

   Results are cached as the server allows. A result of server/discover, tools/list,
   prompts/list, resources/list, resources/templates/list or resources/read that carries a
   positive ttlMs (2026-07-28 servers send it; older ones do not, and then nothing is kept)
   is kept by the client that asked, under the method and the params that made it: each page
   of a list under its cursor, each read under its uri. Asked again while fresh (received
   less than ttlMs ago, a day at most), it is answered at once without the server: the typed
   calls, mcp_client_request and mcp_client_send alike (the call is complete when it is
   returned, the document a copy that is yours). A list is merged from its fresh pages and
   asks again only for the stale ones; a kept cursor the server refuses means the kept pages
   are out of date: they are dropped and the list is read from its start. Dropped before
   their time: on notifications/tools/list_changed (tools/list), prompts/list_changed,
   resources/list_changed (resources/list and templates), resources/updated (the reads of
   that uri) as notifications or 2026-07-28 subscription events, all of them when a new
   session begins, and those whose cacheScope is not "public" when desc.auth installs
   another token. Never kept: an input_required answer, the result of its retry, anything
   larger than desc.cache_max (8 MiB by default; the oldest make room). mcp_client_ping always
   asks the server.

       mcp_client_list_tools(c, &doc, &err);          // asks: tools/list, every page
       mcp_client_list_tools(c, &doc2, &err);         // within ttlMs: nothing sent
       mcp_call_opts o = {0};
       o.no_cache = 1;                                // this call asks the server, and its
       call = mcp_client_send(c, "tools/list", NULL, &o, &err);   // answer is kept instead
       desc.cache_max = MCP_CACHE_OFF;                // a client that keeps nothing

   mcp_client_get_stats counts cache_hits, cache_misses (cacheable requests sent),
   cache_stores, cache_evictions and cache_bytes (held now).

   =============================================================================================
   11. CALLBACKS AND REQUESTS FROM THE SERVER
   =============================================================================================
   All optional, set in the description, all given desc.user. They run on the client's
   thread inside its functions (connect, blocking calls, mcp_client_poll, mcp_call_wait).
   They may send requests, even blocking ones; they must not free the client.

       on_notification(user, c, method, params)   every notification, progress included
                                                  (log messages: notifications/message)
       on_request(user, c, req)                   roots/list, sampling/createMessage,
                                                  elicitation/create: reply now or later
       on_stderr(user, c, line, len)              stdio: one stderr line, without newline
       on_close(user, c, why)                     once, when the connection ends
       on_log(user, c, message)                   what mcp.h dropped or ignored, and why

   Requests from the server: declare what on_request answers with desc.capabilities
   (MCP_CAP_ROOTS, MCP_CAP_ROOTS_LIST_CHANGED, MCP_CAP_SAMPLING, MCP_CAP_ELICITATION,
   MCP_CAP_ELICITATION_URL) or give the whole object as JSON text in desc.capabilities_json.
   Read mcp_request_method and mcp_request_params; answer each request exactly once, with
   mcp_request_reply(req, result_json, &err) or mcp_request_reply_error(req, code, message,
   &err), in the callback or later from the same thread; the reply frees it. If the server
   cancels first, mcp_request_cancelled(req) is 1 and the reply is dropped (still reply, to
   free it). Ping is answered for you; any other method, or any request when on_request is
   not set, gets -32601 "Method not found".

   =============================================================================================
   12. NON-BLOCKING USE
   =============================================================================================
   mcp_client_send (or mcp_client_send_tool, mcp_client_connect_begin) starts a request and
   returns an mcp_call at once; mcp_client_poll does the I/O, fires callbacks, expires
   deadlines and completes calls, which may finish in any order.

       mcp_call *call = mcp_client_send_tool(c, "slow", "{\"steps\": 5}", NULL, &err);
       while (mcp_call_status(call) == MCP_AGAIN)   // in flight
           mcp_client_poll(c, 100);                 // waits up to 100 ms
       if (mcp_call_result(call, &doc, &err) == MCP_OK) ...   // the document is yours
       mcp_call_free(call);

   mcp_call_wait(call, ms) polls until the call is done (-1: no limit). mcp_call_cancel fails
   a call at once with MCP_ERR_CANCELLED and tells the server (not for initialize).
   mcp_client_poll(c, ms) waits up to ms (0: not at all, -1: until something happens) and
   returns MCP_ERR_CLOSED once the connection is over.

   In your own poll loop: watch the fds from mcp_client_pollfds (events are POLLIN/POLLOUT),
   sleep no longer than mcp_client_next_timeout (-1: no deadline), then call
   mcp_client_poll(c, 0). Ask for both again every time: they change. The number of fds
   changes too: stdio needs at most 4, HTTP one per busy connection (at most max_connections
   + 8); mcp_client_pollfd_count(c) says how many there are now, and mcp_client_pollfds
   fills at most max of them, so size the array by the count:

       int n = mcp_client_pollfd_count(c);                  // grow fds to n if needed
       n = mcp_client_pollfds(c, fds, n);
       poll(...those n..., mcp_client_next_timeout(c));
       mcp_client_poll(c, 0);

   Closing without blocking: mcp_client_close_begin(c) starts the close (MCP_AGAIN) and the
   same loop finishes it: mcp_client_poll returns MCP_ERR_CLOSED once the server is gone
   (stdio: up to 2 x close_timeout_ms; HTTP: up to a second for the DELETE), and
   mcp_client_free then has nothing left to wait for. mcp_client_pid(c) gives the stdio
   server's process id (until it is reaped), for programs that watch their children.

   Per call (mcp_call_opts, zero = defaults): timeout_ms (0: the client's; < 0: none),
   reset_on_progress (each progress notification restarts the timeout), max_total_ms (a cap
   on the whole call; with reset_on_progress it defaults to 10 x timeout_ms), on_progress
   (asks the server for progress; total < 0 when unknown, message may be NULL), user, and
   no_cache (the server is asked even if a fresh result is kept: section 10). A call answered
   from the cache is complete when mcp_client_send returns it (mcp_call_status is MCP_OK).

   Ctrl-C: mcp_client_interrupt(c) may be called from a signal handler. The blocking call in
   progress on c (or the next one) stops at once with MCP_ERR_CANCELLED, "Request cancelled:
   interrupted", and the server is told; an interrupted connect is abandoned.

   mcp_client_get_stats counts messages sent, received and dropped, responses to no call in
   flight, stderr bytes, over HTTP the requests sent again (resent), the sessions started
   again after a 404 (reinits) and the redirects followed, and the cache's hits, misses,
   stores, evictions and bytes (section 10).

   =============================================================================================
   13. TRANSPORTS
   =============================================================================================
   stdio (MCP_STDIO)       the server as a child process, JSON lines over pipes. A malformed
                           line is dropped and counted; a line over max_message, or EOF,
                           ends the connection.
   Streamable HTTP         one POST per message, answered with JSON or an SSE stream; 202 for
   (MCP_HTTP)              notifications; the session id and MCP-Protocol-Version sent after
                           the handshake; an SSE answer cut short is resumed with Last-Event-ID
                           (honouring retry:, bounded attempts); a 404 on a session means
                           initialize again, once; the GET stream (405: not offered);
                           keep-alive connections reused; DELETE on close. HTTP/1.1 only.
                           A 307 or 308 is followed (method, body and headers kept, at most
                           5 hops) and its URL is the endpoint from then on; to another
                           origin only with desc.http_cross_origin, and then without
                           desc.headers. A 301, 302 or 303 is an error naming the URL to use.
   Connections (HTTP)      every busy one is polled; at most max_connections carry requests
                           (the rest wait in order) and 8 more carry streams. An idle one is
                           looked at before it is reused (a closed one reads EOF) and not
                           reused past the server's Keep-Alive timeout less a second, or 4 s.
                           A request that broke a reused connection before any answer goes
                           again on a new one only if it did not all go out or is safe to
                           repeat (initialize, ping, server/discover, the list methods,
                           resources/read, prompts/get, completion/complete, notifications);
                           otherwise it fails (MCP_ERR_CLOSED or MCP_ERR_IO) saying that the
                           server may have run it. Error pages in HTML are reported by their
                           title: "HTTP 503 Service Unavailable: Down for maintenance".
   HTTP+SSE (MCP_SSE)      the 2024-11-05 transport: a GET event stream whose "endpoint" event
                           names where to POST (same origin only).
   https://                either HTTP transport through desc.tls, an mcp_tls hook: open()
                           runs the handshake on a connected socket, read() and write() move
                           bytes without blocking (MCP_TLS_WANT_READ / _WANT_WRITE), close()
                           ends the session. examples/tls_openssl.c is a complete hook for
                           OpenSSL 3. Without a hook, https:// is MCP_ERR_INVALID.
   MCP_CUSTOM              the program's own transport: desc.custom points at a struct
                           mcp_transport, the table the three above fill (an in-process
                           server, the program's own sockets or TLS, a test double).

   Bringing your own transport. The table's operations and what each must do are written out
   at >>transport; in short: open returns your state; send queues one message (JSON text,
   no newline; id -1 for a notification or a reply); pollfds and due tell the loop when to
   call io; io does the I/O and reports what happened; close ends it a step at a time (0 when
   over); free releases it. abandon, resume, ready, busy, pid, stats and authorize may be
   NULL (authorize and resume are what desc.auth needs). Report
   with mcp_transport_report(c, &ev), where ev is a zeroed mcp_tev:

       MCP_TEV_MESSAGE  text, len       a message from the server (the client parses it)
       MCP_TEV_FAILED   id, status, text  a request that will get no answer, and why
       MCP_TEV_BROKEN   id -1, status, text  the connection is gone: the client closes
       MCP_TEV_STDERR, MCP_TEV_LOG, MCP_TEV_SESSION_LOST, MCP_TEV_UNAUTHORIZED,
       MCP_TEV_CLOSED: see >>transport

   The client decides what each report means (fail the call, send it again, start a new
   session, close). examples/custom_transport.c runs a server inside the program this way:

       static const mcp_transport inproc = { 0, open_fn, send_fn, pollfds_fn, due_fn, io_fn,
           NULL, close_fn, free_fn, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
       desc.transport = MCP_CUSTOM;
       desc.custom = &inproc;
       mcp_client_transport(c, NULL) == MCP_CUSTOM

   =============================================================================================
   14. PROTOCOL VERSIONS
   =============================================================================================
   Two eras, one API. The calls, callbacks and server requests look the same in both; the
   client picks the era when it connects.

   2026-07-28, the stateless era: no handshake. Each request carries the protocol version,
   the client's capabilities and identity in params._meta; over HTTP also the headers
   MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* (the tool's x-mcp-header
   markings, learnt from tools/list; a tool whose markings are invalid is dropped from the
   list with an on_log warning). There is no session, no GET stream and no DELETE.

   2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05: the era with an initialize handshake.

   desc.protocol_version NULL (the default): connect asks server/discover first, and waits
   at most 3 s for it (half the timeout when timeout_ms is under 6 s): a 2025-era server
   that ignores it costs that wait once per connect, a server that answers "Method not
   found" costs one round trip. The probe, initialize and a fallback share the connect's
   timeout_ms: a silent server fails the connect after timeout_ms in all. A DiscoverResult means the stateless era (an error only a 2026-07-28
   server gives fails the connect with it); -32022 listing 2025-era versions only, any other
   error, or silence, means initialize as before, offering 2025-11-25 and accepting any of
   the four. A version set there is the only one used:
   "2026-07-28" never falls back, "2025-11-25" never probes. mcp_client_protocol_version
   says which one was agreed.

   What changes for the program in the stateless era:
   - Requests from the server come as input_required results: each input request goes to
     on_request like any server request; once every one is answered, the call is sent again
     with the answers (a new id, the server's requestState echoed). The call's timeout is
     paused while on_request holds a request (a person may be typing). At most 8 rounds.
     A request refused with mcp_request_reply_error (or answered with invalid JSON) gives the
     call up with MCP_ERR_CANCELLED: every input request needs an answer before the retry.
     Once a call is given up (or cancelled), its other input requests are not handed out, and
     those already held say mcp_request_cancelled (still reply to free them).
   - HTTP 400 with -32020 (the headers did not match) on a tools/call: tools/list is read
     again, every page, and the call is sent once more with the new markings.
   - Errors -32020, -32021 (capabilities missing) and -32022 (version not supported) are
     spelled out in err.message.
   - mcp_client_set_log_level sets the level sent with every request; mcp_client_ping asks
     server/discover.
   - Notifications come only on a subscription: resources/subscribe and the GET stream are
     gone (MCP_ERR_INVALID), mcp_client_listen(c, filter, opts, &err) opens one instead:

         mcp_call *sub = mcp_client_listen(c, "{\"toolsListChanged\": true, "
                                           "\"resourceSubscriptions\": [\"file:///a\"]}", NULL, &err);

     on_notification then gets notifications/subscriptions/acknowledged (the filter the
     server took) and what was asked for, each with params._meta
     ["io.modelcontextprotocol/subscriptionId"] == mcp_call_id(sub). It has no timeout;
     mcp_call_cancel(sub, NULL) ends it (and mcp_call_free). Several may be open at once.
     Over HTTP a stream that breaks is listened to again (a new id, a new acknowledgment);
     two breaks without an acknowledgment between them end it with MCP_ERR_PROTOCOL. A
     server that ends it gracefully completes the call (MCP_OK).
   - Cancelling over HTTP closes the request's stream; over stdio it sends
     notifications/cancelled, unless the call was only gathering answers.

   =============================================================================================
   15. AUTHORIZATION
   =============================================================================================
   Most remote servers answer a request without a token with 401 and a challenge. With
   desc.auth the client answers it as the MCP specification says (2025-11-25, 2026-07-28, and
   the 2025-03-26 fallbacks): the protected resource metadata (RFC 9728; its resource must be
   the server's URL, else the flow stops), the authorization server's metadata (RFC 8414 or
   OpenID Connect discovery, in the spec's order; its issuer must match exactly, and S256 must
   be offered), a client identity (credentials pre-registered for that issuer, else the
   program's client ID metadata document where the server takes one, else dynamic
   registration, kept per issuer), the browser (PKCE S256, state, the resource parameter, the
   challenge's scopes; the redirect's state and iss are checked), the token request (none,
   client_secret_basic, client_secret_post, or private_key_jwt signed by the program), then
   "Authorization: Bearer" on every request to that server, and only to it. A refresh token
   renews the access token before it expires and after a 401; a 403 insufficient_scope asks
   again with the union of the scopes (a few times at most). client_credentials serves a
   program acting for itself. All of it runs inside the polls: the requests that met the 401
   wait (their timeouts stopped) and go again once there is a token.

       static void show(void *user, const char *url) { printf("Sign in: %s\n", url); }
       mcp_auth auth = {0};
       auth.client_name = "My Editor";
       auth.open_url = show;                  // a browser, a line in the UI, a QR code
       auth.load = my_load; auth.save = my_save;   // below; NULL: tokens last as long as the client
       desc.transport = MCP_HTTP;
       desc.url = "https://mcp.example.com/mcp";
       desc.tls = &my_tls;                    // authorization servers are https://
       desc.auth = &auth;                     // must outlive the client
       if (mcp_client_connect(c, &err) == MCP_ERR_AUTH) show_sign_in_button(err.message);

   The redirect comes back to a loopback receiver on 127.0.0.1 (auth.port, 0: any free port;
   it answers GET /callback once, with a page saying the window can be closed), or, with
   auth.redirect_uri, to the program, which hands the URL it received (or its query) to
   mcp_client_auth_redirect. The wait has auth.timeout_ms (default 5 minutes).

   The store keeps what the next run needs, so the user signs in once. Keys are short texts
   ("mcp-auth tokens <server>", "mcp-auth client <issuer>", and "mcp-auth flow <server>" while
   an authorization waits for its browser: a later run can hand the redirect to
   mcp_client_auth_redirect before it connects); values are JSON texts that hold secrets
   (tokens, a client secret, the PKCE verifier): keep them where only the user can read them.

       static int my_load(void *user, const char *key, mcp_buf *value)
       {
           const char *v = my_keychain_get(key);                // NULL: not stored
           return v && mcp_buf_append(value, v, strlen(v)) == MCP_OK;
       }
       static void my_save(void *user, const char *key, const char *value)
       {
           if (value) my_keychain_put(key, value); else my_keychain_delete(key);
       }

   Pre-registered credentials and a private key:

       mcp_auth_client reg = { "https://auth.example.com", "my-client-id", NULL, "private_key_jwt" };
       auth.clients = &reg; auth.nclients = 1;
       auth.sign = my_sign;                   // ES256/RS256 over the JWS input: mcp.h does
       auth.sign_alg = "ES256";               // no public-key cryptography itself
       auth.grant = MCP_AUTH_CLIENT_CREDENTIALS;   // or MCP_AUTH_CODE (the default): a user

   What fails is MCP_ERR_AUTH with a sentence naming the step ("The authorization server's
   token endpoint answered 400: invalid_grant ..."), MCP_ERR_HTTP/MCP_ERR_PROTOCOL for a
   server that answers badly; tokens, codes, verifiers and secrets appear in no sentence and
   no log line. Without desc.auth a 401 stays MCP_ERR_HTTP with its challenge. stdio servers
   take credentials from their environment (desc.env), as the specification says. Not
   supported: DPoP, the enterprise extensions (cross-app access with an identity provider's
   token exchange), mutual-TLS client authentication, the device flow.

   =============================================================================================
   16. HOST: MANY SERVERS FROM THE USER'S CONFIG FILES
   =============================================================================================
   A program that embeds MCP (an editor, an agent, a game's tool panel) talks to every server
   its user configured. mcp_host does that on the client's public API: it reads the config
   files hosts write, starts every server at once, drives them from one loop, offers one
   sorted tool list under qualified names, routes calls, and brings servers back in bounds.

   Config files, JSON with comments and trailing commas:

       // ~/.config/myeditor/mcp.json, or Claude Desktop's, Cursor's, Claude Code's .mcp.json
       { "mcpServers": {
           "files":  { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                                   "${workspaceFolder}"] },
           "github": { "url": "https://api.githubcopilot.com/mcp/",
                       "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" } },
           "old":    { "type": "sse", "url": "http://localhost:9000/sse", "disabled": true },
       } }

   "mcpServers" (Claude Desktop, Claude Code, Cursor, Windsurf, Cline and most others) and VS
   Code's "servers" (.vscode/mcp.json) are read. Per server: type ("stdio", "http", "sse";
   else from command or url), command, args, env, cwd, url, headers, timeout (milliseconds),
   disabled or enabled; other fields are ignored and named once through on_log. Strings
   expand ${VAR}, ${VAR:-default} and ${env:VAR} from the environment, and anything else
   (${workspaceFolder}, ${userHome}, ${input:NAME}) through desc.config.variable; an unset
   variable stays as written and is reported. A bad entry is added disabled, its error a
   sentence with the place: mcp.json:12:15: server "github": "args" must be an array of
   strings. The others are unaffected. Load several files in order (the user's, then the
   project's): a later server replaces an earlier one of the same name. mcp_config_parse
   reads a file's text without a host; mcp_host_add adds a server from an mcp_client_desc.

   An editor-like loop over three servers from that file:

       static void changed(void *user, mcp_host *h, const char *server, mcp_server_state st,
                           const mcp_error *why)
       {
           printf("%s: %s%s%s\n", server, st == MCP_SERVER_READY ? "ready" : "not ready",
                  why ? ": " : "", why ? why->message : "");
       }
       static const char *editor_var(void *user, const char *name)
       {
           return strcmp(name, "workspaceFolder") ? NULL : "/home/me/project";
       }

       mcp_host_desc hd;
       memset(&hd, 0, sizeof hd);
       hd.client_name = "My Editor";
       hd.on_state = changed;
       hd.config.variable = editor_var;
       hd.cache_file = "/home/me/.cache/myeditor/mcp-tools.json";   // tools at once next time
       hd.tls = &my_tls;                                              // for https:// servers
       mcp_error err;
       mcp_host *h = mcp_host_new(&hd, &err);
       if (mcp_host_load(h, "/home/me/.config/myeditor/mcp.json", &err) != MCP_OK)
           fprintf(stderr, "%s\n", err.message);          // not JSON, or no servers in it
       mcp_host_connect(h, &err);                         // all of them, without waiting
       for (;;) {                                         // the editor's own loop
           mcp_pollfd fds[256];
           int n = mcp_host_pollfds(h, fds, 256);         // add the editor's own fds too
           mcp_poll(fds, n, editor_wants_ms(mcp_host_next_timeout(h)));
           mcp_host_poll(h, 0);                           // I/O, callbacks, reconnects
           if (user_asked_the_model()) {
               mcp_json_doc *tools = NULL, *result = NULL;
               mcp_host_list(h, MCP_HOST_TOOLS, &tools, &err);   // {"tools": [...]}, sorted
               // ... the model picks "github__create_issue" from that list ...
               if (mcp_host_call_tool(h, "github__create_issue", "{\"title\": \"Bug\"}",
                                      &result, &err) != MCP_OK)
                   show(err.message);                     // Server "github": ...
               mcp_json_free(result);
               mcp_json_free(tools);
           }
       }
       mcp_host_free(h);                                  // every server closes at once

   mcp_host_call_tool blocks (the loop's other servers go on meanwhile); mcp_host_send_tool
   and mcp_host_call_* are the same without blocking, as in section 12. Qualified names are
   "server__tool" (desc.separator, or desc.qualify for a rule of your own), kept to what model
   APIs take for function names: [A-Za-z0-9_-], 64 bytes at most; a longer name, or one whose
   mapped bytes meet another, ends in '_' and 8 hex digits of a hash, stable across runs. The
   list is sorted so a model's prompt cache stays valid; notifications/tools/list_changed (on
   2026-07-28, a subscription the host opens) refreshes that server's part, and on_change
   says so. Prompts (mcp_host_get_prompt) work the same; resources keep their URIs
   (mcp_host_read_resource routes by URI).

   States (mcp_host_server_get, on_state): IDLE until connected, CONNECTING (starting, the
   handshake, the first lists), READY, RETRYING (retry_at says when), FAILED (error says why),
   NEEDS_AUTH (auth_url is the page the user must open; nothing retries on a timer) and
   DISABLED. When a server's transport ends, its calls in flight fail with a sentence that
   names it. An HTTP server comes back with exponential backoff and jitter (retry_min_ms
   500 doubling to retry_max_ms 300000) and a breaker (retry_limit 10 attempts in
   retry_window_ms 600000, then FAILED until mcp_host_retry). A stdio server that ended is
   started again only as desc.restart says: MCP_RESTART_ON_CALL (the default: at the next call
   to it, at most restarts_per_minute 3), MCP_RESTART_NEVER, MCP_RESTART_ALWAYS (with the
   backoff). A call to a server still connecting, or coming back, waits for it up to the
   call's timeout.

   The cache file (desc.cache_file) keeps each server's tools, prompts and resources, keyed by
   a hash of its description, written after each change (to a temporary file, then renamed).
   At the next start the host offers them before the servers are up (mcp_host_server.cached);
   a call to a cached tool waits for its server, and the list is replaced by what the server
   says once it is ready. It is a list of what servers offered last time, not a cache of
   results.

   =============================================================================================
   17. REVISIONS
   =============================================================================================
   0.1  (unreleased) base layer; JSON parser, accessors, writer and dump; JSON lines, HTTP/1.1
        and SSE framers; JSON-RPC engine; stdio, Streamable HTTP and HTTP+SSE transports with
        a TLS hook; the MCP client for protocol versions 2024-11-05 to 2025-11-25 and
        2026-07-28 (chosen when connecting), blocking and non-blocking; the authorization flow
        (OAuth 2.1 with PKCE, discovery, registration, refresh, client credentials); the host
        (config files, many servers in one loop, one tool list, reconnects, a cache file);
        result caching by ttlMs and cacheScope; tasks (2025-11-25 and the 2026-07-28
        extension), followed as one call.
*/
#ifndef MCP_H_INCLUDED
#define MCP_H_INCLUDED

#if defined(MCP_IMPLEMENTATION) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime; must precede the first system header */
#endif

#include <stddef.h>
#include <stdint.h>

#if defined(MCP_STATIC) && !defined(MCP_IMPLEMENTATION)
#error "MCP_STATIC gives this file a private copy of mcp.h: define MCP_IMPLEMENTATION here too."
#endif

#ifndef MCPAPI
#ifdef MCP_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define MCPAPI static __attribute__((unused))
#else
#define MCPAPI static
#endif
#else
#define MCPAPI extern
#endif
#endif

#define MCP_VERSION "0.1.0"             /* this library; the default clientInfo.version */

#ifndef MCP_JSON_MAX_DEPTH
#define MCP_JSON_MAX_DEPTH 512
#endif
#ifndef MCP_JSON_MAX_SIZE
#define MCP_JSON_MAX_SIZE ((size_t)128 << 20)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
   >>base  status codes, errors, allocation, clock, random source, SHA-256, base64url
   ============================================================================================ */

typedef enum mcp_status {
    MCP_OK = 0, MCP_AGAIN = 1,                  /* AGAIN: not finished yet (non-blocking) */
    MCP_ERR_NOMEM = -1, MCP_ERR_INVALID = -2,   /* caller misuse, bad argument */
    MCP_ERR_PARSE = -3, MCP_ERR_LIMIT = -4,     /* malformed input; a size/depth limit hit */
    MCP_ERR_IO = -5, MCP_ERR_CLOSED = -6,       /* OS error (errno kept); transport closed */
    MCP_ERR_TIMEOUT = -7, MCP_ERR_CANCELLED = -8,
    MCP_ERR_HTTP = -9, MCP_ERR_RPC = -10,       /* non-2xx status; JSON-RPC error object */
    MCP_ERR_PROTOCOL = -11,                     /* peer broke the protocol */
    MCP_ERR_AUTH = -12                          /* authorization failed or needs the user */
} mcp_status;

typedef struct mcp_error {
    mcp_status status; int http_status; long rpc_code; int sys_errno;
    char message[512];                  /* complete human sentence */
} mcp_error;

MCPAPI const char *mcp_status_str(mcp_status s);   /* "MCP_ERR_PARSE: malformed input" */
MCPAPI void        mcp_free(void *p);              /* frees text the library returned */
MCPAPI int64_t     mcp_time_ms(void);              /* monotonic clock, milliseconds */

/* A growable byte buffer. Zero-initialise; data is NULL until the first append. */
typedef struct mcp_buf { char *data; size_t len, cap; } mcp_buf;
MCPAPI mcp_status  mcp_buf_reserve(mcp_buf *b, size_t more);   /* room for `more` bytes */
MCPAPI mcp_status  mcp_buf_append(mcp_buf *b, const void *data, size_t n);
MCPAPI void        mcp_buf_free(mcp_buf *b);

#ifndef MCP_NO_AUTH
/* What the authorization layer builds on (PKCE, state, client assertions); MCP_NO_AUTH
   leaves them out. */

/* SHA-256 (FIPS 180-4) of the len bytes at data into out. data may be NULL when len is 0. */
MCPAPI void        mcp_sha256(const void *data, size_t len, unsigned char out[32]);

/* base64url (RFC 4648 section 5) of the len bytes at data, without padding, as PKCE and JWTs
   use it. Like snprintf: returns the length of the whole encoding and writes at most cap bytes
   into out, the last of them a NUL (nothing when cap is 0: out may then be NULL, a size query).
   Returns SIZE_MAX, writing only the NUL, if the encoding and its NUL would not fit a size_t. */
MCPAPI size_t      mcp_base64url(const void *data, size_t len, char *out, size_t cap);

/* Fills buf with len bytes from the operating system's random source (getrandom, getentropy or
   /dev/urandom; never a seeded generator), fit for keys, PKCE verifiers and state. It may wait
   at early boot until the kernel has gathered entropy. MCP_ERR_IO with err->sys_errno if the
   source cannot be read, MCP_ERR_INVALID if buf is NULL and len is not 0; err is left alone
   on success. */
MCPAPI mcp_status  mcp_random(void *buf, size_t len, mcp_error *err);
#endif

/* ============================================================================================
   >>json  parser, accessors, iteration, writer, dump
   ============================================================================================ */

typedef struct mcp_json mcp_json;          /* a value inside a document */
typedef struct mcp_json_doc mcp_json_doc;  /* owns every value and string of one parse */
typedef enum mcp_json_type { MCP_JSON_NULL, MCP_JSON_BOOL, MCP_JSON_NUMBER,
    MCP_JSON_STRING, MCP_JSON_ARRAY, MCP_JSON_OBJECT } mcp_json_type;

typedef struct mcp_json_opts {   /* zero-initialised = defaults */
    size_t max_depth;            /* 0: MCP_JSON_MAX_DEPTH (512) */
    size_t max_size;             /* input bytes; 0: MCP_JSON_MAX_SIZE (128 MiB); cap 4 GiB - 1 */
    void  *alloc_ctx;            /* handed to MCP_MALLOC/MCP_REALLOC/MCP_FREE */
    int    comments;             /* 1: JSON with comments: // and block comments wherever
                                    whitespace may be, and a trailing comma in arrays and
                                    objects; for config files (>>host.config), never for
                                    messages; MCP_NO_HOST leaves it out */
} mcp_json_opts;

MCPAPI mcp_json_doc  *mcp_json_parse(const char *text, size_t len, mcp_error *err); /* NULL on error */
MCPAPI mcp_json_doc  *mcp_json_parse_ex(const char *text, size_t len, const mcp_json_opts *opts,
                                        mcp_error *err);
MCPAPI void           mcp_json_free(mcp_json_doc *doc);
MCPAPI const mcp_json *mcp_json_root(const mcp_json_doc *doc);
MCPAPI mcp_json_type  mcp_json_typeof(const mcp_json *v);  /* NULL counts as MCP_JSON_NULL */
MCPAPI size_t         mcp_json_len(const mcp_json *v);     /* items, members, or string bytes */
MCPAPI const mcp_json *mcp_json_get(const mcp_json *obj, const char *key);  /* NULL if absent */
MCPAPI const mcp_json *mcp_json_getn(const mcp_json *obj, const char *key, size_t keylen);
MCPAPI const mcp_json *mcp_json_at(const mcp_json *v, size_t i); /* item i; of an object: member i's value */
MCPAPI const char    *mcp_json_key_at(const mcp_json *obj, size_t i, size_t *keylen); /* member i's key */
MCPAPI const char    *mcp_json_str(const mcp_json *v);   /* NUL-terminated UTF-8; NULL unless string */
MCPAPI double         mcp_json_num(const mcp_json *v);   /* 0 unless number */
MCPAPI int            mcp_json_int64(const mcp_json *v, int64_t *out); /* 1 if an exact integer */
MCPAPI int            mcp_json_is_true(const mcp_json *v);
MCPAPI int            mcp_json_equal(const mcp_json *a, const mcp_json *b); /* deep, value for value */
MCPAPI char          *mcp_json_dump(const mcp_json *v, int pretty, size_t *len); /* mcp_free it */

/* Iterate an array's items or an object's members:
       size_t i; const mcp_json *item;
       mcp_json_foreach(arr, i, item) { ... }
   and for objects, mcp_json_key_at(obj, i, &keylen) names member i. */
#define mcp_json_foreach(v, i, item) \
    for ((i) = 0; ((item) = mcp_json_at((v), (i))) != NULL; (i)++)

/* The writer. Zero-initialise (or mcp_jw_init), call the functions in document order, then
   mcp_jw_finish to take the text. The first misuse (a value where a key is due, an end that
   does not match, a second top-level value, invalid UTF-8, NaN) is recorded: every later call
   does nothing and returns it, and mcp_jw_finish reports it. Pretty output indents by 2. */
typedef struct mcp_jw {
    char *buf; size_t len, cap;          /* the text so far (not NUL-terminated until finish) */
    unsigned char *stack; size_t depth, stack_cap;  /* open containers */
    int pretty;                          /* set before the first call */
    int done;                            /* a complete top-level value was written */
    mcp_status status;                   /* first error, sticky */
    const char *what;                    /* its description */
} mcp_jw;

MCPAPI void        mcp_jw_init(mcp_jw *w, int pretty);
MCPAPI void        mcp_jw_free(mcp_jw *w);
MCPAPI void        mcp_jw_reset(mcp_jw *w);   /* start a new text, keep the memory */
MCPAPI mcp_status  mcp_jw_obj_begin(mcp_jw *w);
MCPAPI mcp_status  mcp_jw_obj_end(mcp_jw *w);
MCPAPI mcp_status  mcp_jw_arr_begin(mcp_jw *w);
MCPAPI mcp_status  mcp_jw_arr_end(mcp_jw *w);
MCPAPI mcp_status  mcp_jw_key(mcp_jw *w, const char *key);
MCPAPI mcp_status  mcp_jw_keyn(mcp_jw *w, const char *key, size_t len);
MCPAPI mcp_status  mcp_jw_str(mcp_jw *w, const char *s);            /* NULL writes null */
MCPAPI mcp_status  mcp_jw_strn(mcp_jw *w, const char *s, size_t len);
MCPAPI mcp_status  mcp_jw_int(mcp_jw *w, int64_t v);
MCPAPI mcp_status  mcp_jw_num(mcp_jw *w, double v);                 /* NaN, inf: MCP_ERR_INVALID */
MCPAPI mcp_status  mcp_jw_bool(mcp_jw *w, int v);
MCPAPI mcp_status  mcp_jw_null(mcp_jw *w);
MCPAPI mcp_status  mcp_jw_value(mcp_jw *w, const mcp_json *v);      /* a parsed value, deep */
MCPAPI mcp_status  mcp_jw_raw(mcp_jw *w, const char *json, size_t len); /* JSON text, checked */
MCPAPI mcp_status  mcp_jw_status(const mcp_jw *w, mcp_error *err);
MCPAPI const char *mcp_jw_text(const mcp_jw *w, size_t *len);  /* complete text (not NUL-
                                                  terminated: use *len), or NULL */
MCPAPI char       *mcp_jw_finish(mcp_jw *w, size_t *len, mcp_error *err); /* mcp_free it; the
                                                  writer is freed (reusable after mcp_jw_init) */

/* ============================================================================================
   >>jsonl  newline-delimited JSON framer (stdio)
   ============================================================================================
   Sans-I/O: feed bytes in, take complete lines out. Lines end at LF or CRLF; the terminator is
   not part of the line; lines of only spaces, tabs or CR are skipped. A line may point into
   the bytes you fed or into the framer's buffer: it stays valid until the next call on the
   framer. Zero-initialise, or set max_line first.

       mcp_jsonl fr = {0};
       while ((n = read(fd, buf, sizeof buf)) > 0)
           for (off = 0; off < n; off += used) {
               st = mcp_jsonl_feed(&fr, buf + off, n - off, &used);
               if (st < 0) goto fail;                       // MCP_ERR_LIMIT: line too long
               while (mcp_jsonl_next(&fr, &line, &len) == MCP_OK) handle(line, len);
           }
       if (mcp_jsonl_finish(&fr, &line, &len) != MCP_OK) ...  // bytes after the last newline
       mcp_jsonl_free(&fr);
*/
#ifndef MCP_JSONL_MAX_LINE
#define MCP_JSONL_MAX_LINE ((size_t)16 << 20)
#endif

typedef struct mcp_jsonl {
    size_t max_line;             /* longest line in bytes; 0: MCP_JSONL_MAX_LINE (16 MiB) */
    const char *what;            /* after an error: what went wrong, a sentence */
    /* private */
    mcp_buf _part;               /* the unfinished line carried between feeds */
    const char *_line; size_t _len;  /* a complete line waiting for next() */
    int _ready;
    mcp_status _status;          /* sticky error */
} mcp_jsonl;

/* Consumes bytes up to the end of the next line (*used says how many). Returns MCP_OK when a
   line waits for mcp_jsonl_next, MCP_AGAIN when all bytes were taken and more are needed,
   MCP_ERR_LIMIT when a line is longer than max_line (sticky). */
MCPAPI mcp_status mcp_jsonl_feed(mcp_jsonl *p, const char *data, size_t len, size_t *used);
MCPAPI mcp_status mcp_jsonl_next(mcp_jsonl *p, const char **line, size_t *len); /* OK or AGAIN */
/* End of stream: MCP_OK, or MCP_ERR_PARSE when bytes after the last newline were left
   (*rest, *len show them: a truncated message). */
MCPAPI mcp_status mcp_jsonl_finish(mcp_jsonl *p, const char **rest, size_t *len);
MCPAPI void       mcp_jsonl_reset(mcp_jsonl *p);   /* start over, keep memory and settings */
MCPAPI void       mcp_jsonl_free(mcp_jsonl *p);

#ifndef MCP_NO_HTTP
/* ============================================================================================
   >>http  URL parser, request writer, HTTP/1.1 response parser, WWW-Authenticate parser,
           form codec (the last two not under MCP_NO_AUTH)
   ============================================================================================ */

typedef struct mcp_http_url {
    int https;                   /* scheme was https:// */
    int ipv6;                    /* host was a bracketed IPv6 literal */
    unsigned port;               /* given, or 80 / 443 */
    int port_given;
    char *host;                  /* NUL-terminated, without brackets */
    char *target;                /* path and ?query, "/" when empty; no #fragment */
    char *_mem;                  /* owns host and target */
} mcp_http_url;

/* http://host[:port][/path][?query] and https://...; a #fragment is dropped. Anything else
   (another scheme, userinfo, spaces or control characters, no host, a bad port) is
   MCP_ERR_INVALID with a sentence in err. */
MCPAPI mcp_status mcp_http_url_parse(mcp_http_url *u, const char *url, mcp_error *err);
MCPAPI void       mcp_http_url_free(mcp_http_url *u);

/* Appends one request to out: "METHOD target HTTP/1.1", Host, the headers ("Name: value",
   NULL-ended, either list may be NULL), Content-Length when there is a body or the method
   is POST or PUT, a blank line and the body. A header that is not "token: value", or whose
   value holds CR, LF or another control character, is MCP_ERR_INVALID (no injection), and
   so are Content-Length and Transfer-Encoding (the writer sets the framing). A Host header
   replaces the default one. */
MCPAPI mcp_status mcp_http_write_request(mcp_buf *out, const char *method, const mcp_http_url *u,
                                         const char *const *headers, const char *const *headers2,
                                         const char *body, size_t body_len, mcp_error *err);

#ifndef MCP_HTTP_MAX_HEAD
#define MCP_HTTP_MAX_HEAD ((size_t)64 << 10)
#endif
#ifndef MCP_HTTP_MAX_HEADERS
#define MCP_HTTP_MAX_HEADERS 100
#endif

typedef enum mcp_http_ev {
    MCP_HTTP_HEAD = 1,           /* status and headers are known */
    MCP_HTTP_BODY,               /* data, len: the next piece of the body (dechunked) */
    MCP_HTTP_END                 /* the response is complete; see keep_alive */
} mcp_http_ev;

typedef struct mcp_http_event { mcp_http_ev type; const char *data; size_t len; } mcp_http_event;

typedef enum mcp_http_framing {
    MCP_HTTP_NO_BODY = 0, MCP_HTTP_LENGTH, MCP_HTTP_CHUNKED, MCP_HTTP_UNTIL_CLOSE
} mcp_http_framing;

/* The response parser (RFC 9112). Zero-initialise; set the limits and head_request before the
   first feed. Interim 1xx responses are skipped. Header names and values, and the reason,
   are NUL-terminated and valid until reset or free. BODY events point into the bytes you
   fed: use them before feeding more. */
typedef struct mcp_http_resp {
    size_t max_head;             /* status line + headers; 0: MCP_HTTP_MAX_HEAD (64 KiB) */
    size_t max_headers;          /* 0: MCP_HTTP_MAX_HEADERS (100) */
    int head_request;            /* the request was HEAD: no body whatever the headers say */
    /* after the HEAD event */
    int status;                  /* e.g. 200 */
    int version;                 /* 10 or 11 */
    const char *reason;
    mcp_http_framing framing;
    uint64_t content_length;     /* when framing is MCP_HTTP_LENGTH */
    int keep_alive;              /* the connection may carry another request after END */
    const char *what;            /* after an error: what went wrong, a sentence */
    /* private */
    mcp_buf _head;
    struct mcp__hdr { const char *name, *value; } *_hdrs;
    size_t _nhdrs, _hdrcap, _line_start, _trailer_bytes, _ext_bytes;
    uint64_t _left;              /* body or chunk bytes still due */
    int _state, _digits, _has_ev, _end_pending, _got_any;
    mcp_http_event _ev;
    mcp_status _status;
} mcp_http_resp;

/* Consumes bytes until an event is ready: MCP_OK (take it with next), MCP_AGAIN (all bytes
   taken, need more), or an error: MCP_ERR_PARSE (malformed), MCP_ERR_LIMIT (head too large).
   After END, bytes beyond the response are not consumed (*used tells). */
MCPAPI mcp_status mcp_http_resp_feed(mcp_http_resp *r, const char *data, size_t len, size_t *used);
MCPAPI mcp_status mcp_http_resp_next(mcp_http_resp *r, mcp_http_event *ev);  /* OK or AGAIN */
/* The connection closed: completes a body read until close (an END event follows), or says
   MCP_ERR_CLOSED (nothing of a response arrived) or MCP_ERR_PARSE (it was cut short). */
MCPAPI mcp_status mcp_http_resp_finish(mcp_http_resp *r);
/* The nth (0-based) header with this name, compared case-insensitively, or NULL. */
MCPAPI const char *mcp_http_resp_header(const mcp_http_resp *r, const char *name, size_t nth);
MCPAPI size_t      mcp_http_resp_header_count(const mcp_http_resp *r);
MCPAPI const char *mcp_http_resp_header_at(const mcp_http_resp *r, size_t i, const char **value);
MCPAPI void        mcp_http_resp_reset(mcp_http_resp *r);   /* next response, keep memory */
MCPAPI void        mcp_http_resp_free(mcp_http_resp *r);

#ifndef MCP_NO_AUTH
/* ---- WWW-Authenticate (RFC 9110 section 11.6.1; Bearer: RFC 6750 section 3) ----------------
   For the authorization layer. The parser reads one field value (a list of challenges) as
   items: a challenge's scheme, then its auth-params or its token68. Sans-I/O like mcp_sse:
   feed the value in pieces, take each item with next, call finish at the end of the value
   (it may give a last item); then the parser takes the next WWW-Authenticate field. Names are
   given as written (compare them case-insensitively); quoted values come unquoted, with their
   quoted-pairs resolved. Item fields point into the parser: valid until the next call on it.
   Lenient with empty list elements and whitespace, strict with the rest of the grammar: an
   unquoted value must be a token, quoted strings must end, no control characters.

       mcp_http_wwwauth wa = {0};
       for (off = 0; off < n; off += used) {
           st = mcp_http_wwwauth_feed(&wa, value + off, n - off, &used);
           if (st < 0) goto fail;                           // wa.what says why
           while (mcp_http_wwwauth_next(&wa, &it) == MCP_OK) handle(&it);
       }
       if (mcp_http_wwwauth_finish(&wa) < 0) goto fail;
       while (mcp_http_wwwauth_next(&wa, &it) == MCP_OK) handle(&it);
       mcp_http_wwwauth_free(&wa);
*/
#ifndef MCP_HTTP_WWWAUTH_MAX_ITEM
#define MCP_HTTP_WWWAUTH_MAX_ITEM ((size_t)8 << 10)
#endif
#ifndef MCP_HTTP_WWWAUTH_MAX_ITEMS
#define MCP_HTTP_WWWAUTH_MAX_ITEMS 256
#endif

typedef enum mcp_http_wwwauth_kind {
    MCP_WWWAUTH_SCHEME = 1,      /* a challenge begins: name is its auth-scheme */
    MCP_WWWAUTH_PARAM,           /* an auth-param of the current challenge: name, value */
    MCP_WWWAUTH_TOKEN68          /* the current challenge's token68: value (name is NULL) */
} mcp_http_wwwauth_kind;

typedef struct mcp_http_wwwauth_item {
    mcp_http_wwwauth_kind kind;
    const char *name; size_t name_len;     /* NUL-terminated */
    const char *value; size_t value_len;   /* NUL-terminated; NULL for a scheme */
} mcp_http_wwwauth_item;

typedef struct mcp_http_wwwauth {
    size_t max_item;             /* bytes of one item (name + value); 0: 8 KiB */
    size_t max_items;            /* items until reset, over all fields; 0: 256 */
    const char *what;            /* after an error: what went wrong, a full sentence */
    /* private */
    mcp_buf _buf;                /* the item being read: name, NUL, value, NUL */
    size_t _name_len, _items;
    int _state, _after_scheme, _open, _t68, _word_t68, _eq_tight, _val_ws, _sep, _ready, _clear;
    mcp_http_wwwauth_item _item;
    mcp_status _status;          /* sticky error */
} mcp_http_wwwauth;

/* Consumes bytes until an item is ready: MCP_OK (take it with next), MCP_AGAIN (all bytes
   taken), MCP_ERR_PARSE (malformed), MCP_ERR_LIMIT (an item over max_item, or more than
   max_items items); errors are sticky until reset. */
MCPAPI mcp_status mcp_http_wwwauth_feed(mcp_http_wwwauth *p, const char *data, size_t len, size_t *used);
MCPAPI mcp_status mcp_http_wwwauth_next(mcp_http_wwwauth *p, mcp_http_wwwauth_item *it); /* OK or AGAIN */
/* The field value ended: MCP_OK (a last item may wait for next; the parser then takes a new
   field), or the error (a quoted string or a parameter cut short, an item not taken). */
MCPAPI mcp_status mcp_http_wwwauth_finish(mcp_http_wwwauth *p);
MCPAPI void       mcp_http_wwwauth_reset(mcp_http_wwwauth *p);   /* keeps memory and limits */
MCPAPI void       mcp_http_wwwauth_free(mcp_http_wwwauth *p);

/* What the authorization layer needs from a 401 or 403: the first Bearer challenge of all
   the WWW-Authenticate fields, in order. Absent parameters are NULL. One allocation, of at
   most four times MCP_HTTP_WWWAUTH_MAX_ITEM bytes; mcp_http_bearer_free releases it. */
typedef struct mcp_http_bearer {
    int found;                   /* a Bearer challenge was there */
    const char *resource_metadata;   /* RFC 9728: the protected resource metadata URL */
    const char *scope, *error, *error_description;   /* RFC 6750 section 3 */
    char *_mem;
} mcp_http_bearer;

/* Fills b from r's WWW-Authenticate fields (after r's HEAD event); MCP_OK even when none
   is Bearer (then found is 0). A malformed field, or a parameter of RFC 6750 or RFC 9728
   repeated in the Bearer challenge, is MCP_ERR_PARSE (MCP_ERR_LIMIT: too large) with a
   sentence in err; b is then empty. Reading stops at the end of the first Bearer challenge. */
MCPAPI mcp_status mcp_http_bearer_challenge(mcp_http_bearer *b, const mcp_http_resp *r, mcp_error *err);
/* The same from field values got some other way (values[0..n), each NUL-terminated). */
MCPAPI mcp_status mcp_http_bearer_from_values(mcp_http_bearer *b, const char *const *values, size_t n,
                                              mcp_error *err);
MCPAPI void       mcp_http_bearer_free(mcp_http_bearer *b);

/* ---- application/x-www-form-urlencoded: token requests, authorization URLs, redirects --- */
#ifndef MCP_HTTP_FORM_MAX
#define MCP_HTTP_FORM_MAX ((size_t)1 << 20)
#endif

/* Appends "name=value" to out, after a '&' when out is not empty, each percent-encoded but
   for RFC 3986 unreserved characters (ALPHA DIGIT - . _ ~; a space is %20). Both strings
   must be non-NULL (MCP_ERR_INVALID). On failure out is as it was. */
MCPAPI mcp_status mcp_http_form_append(mcp_buf *out, const char *name, const char *value, mcp_error *err);
/* Looks name up in form data s[0..len) (a query without its '?', or a form body): pairs
   split at '&', then at the first '='; '+' and %XX decoded; names compared exactly after
   decoding. Returns 1 (found: out holds the decoded value, NUL-terminated, replacing what
   it held), 0 (absent), or a negative mcp_status with a sentence in err: MCP_ERR_PARSE for
   a '%' not followed by two hex digits or a NUL byte anywhere (raw or decoded), or name
   given twice (RFC 6749 section 3.1); MCP_ERR_LIMIT when len is over MCP_HTTP_FORM_MAX. */
MCPAPI int        mcp_http_form_get(const char *s, size_t len, const char *name, mcp_buf *out, mcp_error *err);
#endif /* MCP_NO_AUTH */

/* ============================================================================================
   >>sse  Server-Sent Events parser (WHATWG HTML, "Parsing an event stream")
   ============================================================================================
   The stream is decoded as UTF-8 (invalid bytes become U+FFFD), one leading BOM is dropped,
   lines end at CRLF, LF or CR, and a blank line dispatches the event. Event fields point into
   the parser: valid until the next call on it. Zero-initialise, or set max_event first. */
#ifndef MCP_SSE_MAX_EVENT
#define MCP_SSE_MAX_EVENT ((size_t)16 << 20)
#endif

typedef struct mcp_sse_event {
    const char *type; size_t type_len;   /* "message" unless an event: field said otherwise */
    const char *data; size_t data_len;   /* data: lines joined with LF */
    const char *id; size_t id_len;       /* the last event id at dispatch ("" if none) */
} mcp_sse_event;

typedef struct mcp_sse {
    size_t max_event;            /* bytes of one line or one event's data; 0: 16 MiB */
    int has_retry;               /* a valid retry: field was seen */
    unsigned long retry_ms;      /* the latest one */
    const char *what;            /* after an error: what went wrong, a sentence */
    /* private */
    mcp_buf _line, _data, _type, _idbuf, _lastid, _fix;
    int _cr, _skip, _bom_done, _ready, _clear;
    mcp_status _status;
} mcp_sse;

/* Consumes bytes until an event is dispatched: MCP_OK (take it with next), MCP_AGAIN (all
   taken, need more) or MCP_ERR_LIMIT (a line or an event's data over max_event; sticky). */
MCPAPI mcp_status mcp_sse_feed(mcp_sse *p, const char *data, size_t len, size_t *used);
MCPAPI mcp_status mcp_sse_next(mcp_sse *p, mcp_sse_event *ev);   /* OK or AGAIN */
MCPAPI mcp_status mcp_sse_finish(mcp_sse *p);   /* end of stream: an unfinished event is dropped */
MCPAPI const char *mcp_sse_last_id(const mcp_sse *p, size_t *len);  /* for Last-Event-ID */
MCPAPI void       mcp_sse_reset(mcp_sse *p);    /* a new stream; keeps the last id and retry */
MCPAPI void       mcp_sse_free(mcp_sse *p);
#endif /* MCP_NO_HTTP */

/* ============================================================================================
   >>rpc  JSON-RPC 2.0 message classification (the engine itself is internal to the client)
   ============================================================================================ */

typedef enum mcp_msg_kind {
    MCP_MSG_INVALID = 0,         /* not a JSON-RPC 2.0 message */
    MCP_MSG_REQUEST,             /* method and id */
    MCP_MSG_NOTIFICATION,        /* method, no id */
    MCP_MSG_RESULT,              /* id and result */
    MCP_MSG_ERROR                /* id and error {code, message} */
} mcp_msg_kind;

/* Classifies one message; for MCP_MSG_INVALID, *why (if not NULL) says what is wrong. */
MCPAPI mcp_msg_kind mcp_rpc_classify(const mcp_json *msg, const char **why);

#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
/* ============================================================================================
   >>auth  the MCP authorization flow (OAuth 2.1, PKCE) for HTTP servers that answer 401
   ============================================================================================
   A program that sets desc.auth lets the client answer a server's 401 itself: it finds the
   authorization server (RFC 9728, RFC 8414, OpenID Connect discovery), gets a client identity
   (pre-registered, a client ID metadata document, or RFC 7591 registration), sends the user's
   browser to the authorization page (PKCE S256, state, resource), redeems the code, and puts
   "Authorization: Bearer ..." on every request to that server. The program supplies what only
   it can: showing the URL, the place the tokens are kept, and for private_key_jwt a signature. */
typedef enum mcp_auth_grant {
    MCP_AUTH_CODE = 0,                   /* a user signs in through a browser */
    MCP_AUTH_CLIENT_CREDENTIALS = 1      /* the program itself, with pre-registered credentials */
} mcp_auth_grant;

/* Credentials registered beforehand with one authorization server (never sent to another). */
typedef struct mcp_auth_client {
    const char *issuer;                  /* that server's issuer, exactly as its metadata says;
                                            NULL: whichever the server names (a program that
                                            knows its server has exactly one) */
    const char *client_id;
    const char *client_secret;           /* NULL: a public client */
    const char *auth_method;             /* at the token endpoint: "none", "client_secret_basic",
                                            "client_secret_post", "private_key_jwt"; NULL: the
                                            first the server supports that these credentials can */
} mcp_auth_client;

typedef struct mcp_auth {
    mcp_auth_grant grant;
    const char *client_name;             /* registration and consent page; NULL: "mcp.h" */
    const char *redirect_uri;            /* NULL: the loopback receiver's, http://127.0.0.1:PORT/callback */
    unsigned short port;                 /* the loopback receiver's port; 0: any free one */
    const char *scope;                   /* scopes wanted beyond what the server asks, space-separated */
    int offline_access;                  /* ask for a refresh token (offline_access) where offered */
    const char *client_id_metadata_url;  /* an https:// URL where the program hosts its client
                                            ID metadata document; used where the server takes it */
    const mcp_auth_client *clients;      /* pre-registered credentials, nclients of them */
    size_t nclients;
    int timeout_ms;                      /* the wait for the browser; 0: 300000 (5 minutes) */
    void *user;                          /* passed to the callbacks */
    /* Show the user the authorization URL: open a browser, print it, put it in the UI. */
    void (*open_url)(void *user, const char *url);
    /* Storage, optional (without it tokens live as long as the client): load fills value with
       what save was given for key and returns 1, or returns 0; save with value NULL deletes.
       Keys name what they hold and for which server; values hold secrets: keep them safe. */
    int (*load)(void *user, const char *key, mcp_buf *value);
    void (*save)(void *user, const char *key, const char *value);
    /* private_key_jwt: append the signature of input (a JWS signing input) to sig and return
       MCP_OK; alg names the algorithm used ("RS256", "ES256", ...). */
    mcp_status (*sign)(void *user, const char *input, size_t len, mcp_buf *sig, mcp_error *err);
    const char *sign_alg;
} mcp_auth;

/* ============================================================================================
   >>client  the MCP client: connect, calls, callbacks, blocking and non-blocking use
   ============================================================================================ */

typedef enum mcp_transport_kind { MCP_STDIO = 0, MCP_HTTP, MCP_SSE, MCP_CUSTOM } mcp_transport_kind;
typedef struct mcp_transport mcp_transport;   /* a transport's operations (see the end) */
typedef struct mcp_client mcp_client;
typedef struct mcp_call mcp_call;        /* one request in flight, then its outcome */
typedef struct mcp_request mcp_request;  /* a request from the server, waiting for our answer */

/* Capabilities the client declares, for the requests its on_request callback answers. */
enum {
    MCP_CAP_ROOTS = 1,                   /* roots/list */
    MCP_CAP_ROOTS_LIST_CHANGED = 2,      /* ... and we send notifications/roots/list_changed */
    MCP_CAP_SAMPLING = 4,                /* sampling/createMessage */
    MCP_CAP_ELICITATION = 8,             /* elicitation/create, form mode */
    MCP_CAP_ELICITATION_URL = 16         /* elicitation/create, url mode */
};

/* https:// goes through the caller's TLS library (libc has none): see examples/tls_openssl.c.
   open() runs the handshake on a connected TCP socket (blocking, bounded by the connect
   timeout) and returns a session; read() and write() move bytes on it without blocking. */
typedef struct mcp_tls {
    void *user;
    void *(*open)(void *user, int fd, const char *host, mcp_error *err);  /* NULL: failed */
    /* read is called until it answers MCP_TLS_WANT_READ, so bytes the library holds are never
       left waiting for poll() */
    long (*read)(void *session, void *buf, size_t len);   /* >0 bytes, 0 EOF, MCP_TLS_WANT_*, <0 */
    long (*write)(void *session, const void *buf, size_t len);   /* >0 bytes, MCP_TLS_WANT_*, <0 */
    void (*close)(void *session);        /* ends the session; mcp.h closes the fd itself */
} mcp_tls;
enum { MCP_TLS_WANT_READ = -2, MCP_TLS_WANT_WRITE = -3 };

typedef struct mcp_client_desc {        /* zero-initialised = defaults */
    mcp_transport_kind transport;
    const char *command; const char *const *args;    /* stdio: argv after command, NULL-ended */
    const char *const *env; const char *cwd;         /* stdio: "K=V" overrides ("K": unset); NULL = inherit */
    const char *url; const char *const *headers;     /* http/sse: "Name: value", NULL-ended */
    const char *protocol_version;        /* NULL: the newest this client speaks */
    const char *client_name, *client_version;
    int timeout_ms;                      /* per request; 0: default 30000; <0: none */
    /* callbacks: all optional, all get `user` */
    void *user;
    void (*on_notification)(void *user, mcp_client *c, const char *method, const mcp_json *params);
                                         /* every notification, progress too (after on_progress) */
    void (*on_request)(void *user, mcp_client *c, mcp_request *req);    /* answer now or later */
    void (*on_stderr)(void *user, mcp_client *c, const char *line, size_t len);
                                         /* stdio: each stderr line (long ones in 4096-byte
                                            pieces); without it stderr is still drained, and
                                            its last 4 KiB quoted if the server dies */
    void (*on_close)(void *user, mcp_client *c, const mcp_error *why);  /* once, when it ends */
    void (*on_log)(void *user, mcp_client *c, const char *message);     /* dropped messages etc. */
    unsigned capabilities;               /* MCP_CAP_* answered by on_request */
    const char *capabilities_json;       /* or the whole "capabilities" object, as JSON text */
    size_t max_message;                  /* bytes of one message; 0: 16 MiB */
    int close_timeout_ms;                /* stdio close: each wait; 0: 2000 */
    const mcp_tls *tls;                  /* https:// needs it */
    int http_listen;                     /* Streamable HTTP, before 2026-07-28: the GET event
                                            stream, for messages the server sends on its own;
                                            0: open (dropped silently on 405), -1: never */
    int connect_timeout_ms;              /* HTTP: TCP connect and TLS handshake; 0: 10000 */
    size_t max_queued;                   /* stdio: bytes of requests the server has not read
                                            yet; past it new requests fail (MCP_ERR_LIMIT), as
                                            a server that stopped reading would make them wait
                                            for ever; 0: 64 MiB */
    int http_cross_origin;               /* HTTP: follow a 307/308 to another origin (then never
                                            with desc.headers); 0: such a redirect is an error */
    int max_connections;                 /* HTTP: connections carrying requests at once; more
                                            requests wait their turn, in order, their timeouts
                                            running; 0: 16. Long-lived streams (the GET stream,
                                            HTTP+SSE's, mcp_client_listen's) have 8 of their own */
    const mcp_transport *custom;         /* MCP_CUSTOM: the program's own transport */
    const mcp_auth *auth;                /* HTTP: answer 401 with the authorization flow (>>auth);
                                            NULL: a 401 fails the request (MCP_ERR_HTTP) */
    int no_tasks;                        /* never run a call as a task: 2026-07-28 does not
                                            declare the tasks extension, 2025-11-25 never asks */
    size_t cache_max;                    /* bytes of results kept while fresh (the lists and
                                            resources/read, by their ttlMs: section 10); 0: 8 MiB,
                                            MCP_CACHE_OFF: nothing kept */
} mcp_client_desc;
#define MCP_CACHE_OFF ((size_t)-1)       /* desc.cache_max: no result caching */

MCPAPI mcp_client *mcp_client_new(const mcp_client_desc *desc, mcp_error *err);
MCPAPI mcp_status  mcp_client_connect(mcp_client *c, mcp_error *err);   /* handshake done on return */
MCPAPI mcp_status  mcp_client_request(mcp_client *c, const char *method, const char *params_json,
                                      mcp_json_doc **result, mcp_error *err); /* root = "result" */
MCPAPI mcp_status  mcp_client_notify(mcp_client *c, const char *method, const char *params_json,
                                     mcp_error *err);
MCPAPI mcp_status  mcp_client_close(mcp_client *c);   /* graceful; in-flight calls fail "Transport closed" */
/* The browser came back from the authorization page to the program's own redirect URI
   (desc.auth->redirect_uri): url is where it landed (or just its query). MCP_OK: the flow
   goes on in the polls; an error: the flow failed, and the requests waiting for it. Called
   before mcp_client_connect it finishes a flow an earlier run of the program left waiting
   (the store keeps it), redeeming the code at once; the connect then uses the token. */
MCPAPI mcp_status  mcp_client_auth_redirect(mcp_client *c, const char *url, mcp_error *err);
/* Closes without the polite waits, for a server being abandoned (after a timeout, Ctrl-C):
   stdio sends SIGTERM to the server's group at once (SIGKILL after close_timeout_ms, then
   reaps); HTTP neither waits for what was queued nor DELETEs the session. */
MCPAPI mcp_status  mcp_client_close_now(mcp_client *c);
/* The close of mcp_client_close without blocking: MCP_AGAIN while it goes on (keep polling:
   mcp_client_pollfds, mcp_client_next_timeout, mcp_client_poll, which returns MCP_ERR_CLOSED
   once it is over, on_close called), MCP_OK if it ended at once. Calls in flight fail with
   "Transport closed" at its end. mcp_client_close or mcp_client_free in the middle finish it
   (blocking). */
MCPAPI mcp_status  mcp_client_close_begin(mcp_client *c);
MCPAPI void        mcp_client_free(mcp_client *c);    /* closes first if needed; calls not yet
                           freed stay valid (failed, detached): mcp_call_free them; requests from
                           the server not yet answered are freed. Never from its own callbacks. */

/* After connect: what the server said about itself (NULL before). */
MCPAPI const char     *mcp_client_protocol_version(const mcp_client *c);
MCPAPI const mcp_json *mcp_client_server_info(const mcp_client *c);          /* {name, version, ...} */
MCPAPI const mcp_json *mcp_client_server_capabilities(const mcp_client *c);
MCPAPI const char     *mcp_client_instructions(const mcp_client *c);         /* NULL if none */
/* stdio: the server's process id (its process group's too), until it is reaped; else 0. */
MCPAPI long            mcp_client_pid(const mcp_client *c);
/* The transport in use: MCP_SSE after a URL given as MCP_HTTP fell back to HTTP+SSE, and then
   *fallback (when not NULL) says why, e.g. "POST answered 404"; else *fallback is NULL. */
MCPAPI mcp_transport_kind mcp_client_transport(const mcp_client *c, const char **fallback);

/* Typed calls, blocking. Each returns the "result" object as a document (mcp_json_free it).
   Lists follow nextCursor to the end and return every item in one array; fresh results the
   client kept (ttlMs: desc.cache_max, section 10) answer without a request. A method whose
   capability the server did not declare fails at once with MCP_ERR_INVALID (this holds for
   mcp_client_request and mcp_client_send too). */
MCPAPI mcp_status mcp_client_list_tools(mcp_client *c, mcp_json_doc **result, mcp_error *err);
                                        /* all pages: {"tools":[...]} */
MCPAPI mcp_status mcp_client_call_tool(mcp_client *c, const char *name, const char *args_json,
                                       mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_client_list_resources(mcp_client *c, mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_client_list_resource_templates(mcp_client *c, mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_client_read_resource(mcp_client *c, const char *uri, mcp_json_doc **result,
                                           mcp_error *err);
MCPAPI mcp_status mcp_client_subscribe(mcp_client *c, const char *uri, mcp_error *err);
MCPAPI mcp_status mcp_client_unsubscribe(mcp_client *c, const char *uri, mcp_error *err);
MCPAPI mcp_status mcp_client_list_prompts(mcp_client *c, mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_client_get_prompt(mcp_client *c, const char *name, const char *args_json,
                                        mcp_json_doc **result, mcp_error *err);
/* ref_json: {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...};
   context_json: NULL or {"arguments":{...}} */
MCPAPI mcp_status mcp_client_complete(mcp_client *c, const char *ref_json, const char *arg_name,
                                      const char *arg_value, const char *context_json,
                                      mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_client_set_log_level(mcp_client *c, const char *level, mcp_error *err);
MCPAPI mcp_status mcp_client_ping(mcp_client *c, mcp_error *err);
/* 2025-11-25 servers that declare tasks.list: every task the server keeps for this client,
   all pages: {"tasks": [{"taskId", "status", "statusMessage", "createdAt", ...}]}. */
MCPAPI mcp_status mcp_client_list_tasks(mcp_client *c, mcp_json_doc **result, mcp_error *err);

/* ---- non-blocking use ----------------------------------------------------------------------
   Send returns a call at once; mcp_client_poll does the I/O, fires callbacks and completes
   calls; take the outcome with mcp_call_result; mcp_call_free each call when done with it
   (freeing a pending call cancels it). Calls may complete in any order. */

typedef struct mcp_call_opts {            /* zero-initialised = defaults */
    int timeout_ms;                       /* 0: the client's; <0: none */
    int reset_on_progress;                /* progress from the server restarts the timeout */
    int max_total_ms;                     /* cap on the whole call; 0: 10 x timeout_ms with
                                             reset_on_progress (else the timeout is the cap) */
    void (*on_progress)(void *user, mcp_call *call, double progress, double total,
                        const char *message);    /* total < 0 when unknown; message may be NULL */
    void *user;
    /* Tasks (section 10): a call the server runs as a task reports each status it learns
       ("working", "input_required", "completed", "failed", "cancelled") with the server's
       message (NULL if none). */
    void (*on_task)(void *user, mcp_call *call, const char *task_id, const char *status,
                    const char *message);
    int task;                            /* 2025-11-25: run a tool whose taskSupport is
                                            "optional" as a task ("required" always is) */
    int no_cache;                         /* ask the server even if a fresh result is kept (the
                                             answer is kept in its place) */
} mcp_call_opts;

MCPAPI mcp_call  *mcp_client_send(mcp_client *c, const char *method, const char *params_json,
                                  const mcp_call_opts *opts, mcp_error *err);
MCPAPI mcp_call  *mcp_client_send_tool(mcp_client *c, const char *name, const char *args_json,
                                       const mcp_call_opts *opts, mcp_error *err);
/* 2026-07-28: subscriptions/listen, a stream of notifications until mcp_call_cancel (or the
   server ends it: the call completes). notifications_json is the filter, e.g.
   {"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}. They come to
   on_notification, params._meta["io.modelcontextprotocol/subscriptionId"] equal to
   mcp_call_id(call); the first is notifications/subscriptions/acknowledged with the filter
   the server accepted. No timeout unless opts sets one. Legacy era: MCP_ERR_INVALID. */
MCPAPI mcp_call  *mcp_client_listen(mcp_client *c, const char *notifications_json,
                                    const mcp_call_opts *opts, mcp_error *err);
MCPAPI mcp_call  *mcp_client_connect_begin(mcp_client *c, mcp_error *err); /* done with the call */
MCPAPI mcp_status mcp_call_status(const mcp_call *call);      /* MCP_AGAIN while in flight */
/* The outcome: MCP_OK with *result (ownership passes to you; NULL the second time), or the
   error status with err filled. MCP_AGAIN while in flight. */
MCPAPI mcp_status mcp_call_result(mcp_call *call, mcp_json_doc **result, mcp_error *err);
MCPAPI int64_t    mcp_call_id(const mcp_call *call);
/* The task the server runs the call as (NULL until the server made it one). */
MCPAPI const char *mcp_call_task_id(const mcp_call *call);
/* A call that follows a task the server already runs (started by this program earlier, or
   by another): polls it like a call that became a task, and ends with its result. */
MCPAPI mcp_call  *mcp_client_attach_task(mcp_client *c, const char *task_id, const mcp_call_opts *opts,
                                         mcp_error *err);
MCPAPI mcp_status mcp_call_cancel(mcp_call *call, const char *reason);  /* not for initialize */
MCPAPI void       mcp_call_free(mcp_call *call);   /* on the initialize call: abandons the connect */
/* Waits up to timeout_ms (-1: until it is done) for one call, polling the client. */
MCPAPI mcp_status mcp_call_wait(mcp_call *call, int timeout_ms);
/* From a signal handler (async-signal-safe) or the same thread: the blocking call in progress
   (or the next one) stops at once with MCP_ERR_CANCELLED "Request cancelled: interrupted",
   and the server is told, as with mcp_call_cancel; an interrupted connect is abandoned. */
MCPAPI void       mcp_client_interrupt(mcp_client *c);

/* One round of I/O and callbacks: waits up to timeout_ms (0: no wait, -1: until something
   happens) for the transport or the next deadline. MCP_ERR_CLOSED once the transport is
   closed. Callbacks may send, and may even make blocking calls. */
MCPAPI mcp_status mcp_client_poll(mcp_client *c, int timeout_ms);

/* For an outside poll() loop: the fds to watch (events: POLLIN/POLLOUT from <poll.h>) and
   the milliseconds until the next deadline (-1: none). When poll() returns, call
   mcp_client_poll(c, 0). */
typedef struct mcp_pollfd { int fd; short events, revents; } mcp_pollfd;   /* revents: mcp_poll */
MCPAPI int mcp_client_pollfds(const mcp_client *c, mcp_pollfd *fds, int max);   /* count */
/* How many descriptors mcp_client_pollfds has to give now (it gives at most max): size the
   array by it; over HTTP it grows with the calls in flight (up to max_connections + 8). */
MCPAPI int mcp_client_pollfd_count(const mcp_client *c);
MCPAPI int mcp_client_next_timeout(const mcp_client *c);
/* One wait for many clients' descriptors (>>transport's poll()): up to timeout_ms (-1: until
   one is ready), revents set on each; the count ready (0: the time passed or a signal came). */
MCPAPI int mcp_poll(mcp_pollfd *fds, int n, int timeout_ms);

/* ---- requests from the server (roots/list, sampling/createMessage, elicitation/create) ----
   on_request gets each of these three; answer it with exactly one reply, now or later. Ping
   is answered for you; any other method, or any request when on_request is not set, gets
   -32601 "Method not found". A reply frees the request. */
MCPAPI const char     *mcp_request_method(const mcp_request *req);
MCPAPI const mcp_json *mcp_request_params(const mcp_request *req);
MCPAPI int             mcp_request_cancelled(const mcp_request *req);  /* the server gave up */
MCPAPI mcp_status mcp_request_reply(mcp_request *req, const char *result_json, mcp_error *err);
MCPAPI mcp_status mcp_request_reply_error(mcp_request *req, long code, const char *message,
                                          mcp_error *err);

typedef struct mcp_client_stats {
    uint64_t sent, received;             /* messages */
    uint64_t dropped;                    /* received and dropped: malformed or not JSON-RPC */
    uint64_t unknown_ids;                /* responses to no call in flight (late ones included) */
    uint64_t stderr_bytes;
    uint64_t resent;                     /* HTTP: requests sent again on a new connection */
    uint64_t reinits;                    /* HTTP: sessions started again after a 404 */
    uint64_t redirects;                  /* HTTP: 307/308 redirects followed */
    uint64_t cache_hits;                 /* requests answered from kept results, not sent */
    uint64_t cache_misses;               /* cacheable requests sent: none kept, stale, or no_cache */
    uint64_t cache_stores;               /* results kept */
    uint64_t cache_evictions;            /* fresh results dropped to make room, oldest first */
    uint64_t cache_bytes;                /* held by the kept results now (at most desc.cache_max) */
} mcp_client_stats;
MCPAPI void mcp_client_get_stats(const mcp_client *c, mcp_client_stats *out);

/* ---- a transport of the program's own (desc.transport = MCP_CUSTOM, desc.custom) ---------
   The same table the built-in transports fill; the contract of each operation is written out
   at >>transport in the implementation, and "Bringing your own transport" in the manual
   shows one. The transport reports what happens with mcp_transport_report. */
typedef enum mcp_tev_kind {
    MCP_TEV_MESSAGE = 1,                 /* text: a message from the server (JSON-RPC, or a batch) */
    MCP_TEV_STDERR,                      /* text: a line of the server's diagnostics */
    MCP_TEV_LOG,                         /* text: a sentence for on_log; status < 0: a message lost */
    MCP_TEV_FAILED,                      /* request id failed: status, text, http_status, sys_errno */
    MCP_TEV_SESSION_LOST,                /* request id met an expired session: resume it later */
    MCP_TEV_BROKEN,                      /* id >= 0: its answer's stream broke (resumable?);
                                            id -1: the connection is gone (status, text) */
    MCP_TEV_CLOSED,                      /* the close is over: how the server ended */
    MCP_TEV_UNAUTHORIZED                 /* request id (-1: a message or stream of its own) met
                                            HTTP 401 or 403 and waits: text the sentence, body the
                                            WWW-Authenticate values, one per line; resume it once
                                            authorized, or abandon it (only with desc.auth) */
} mcp_tev_kind;

typedef struct mcp_tev {                 /* zero-initialised, then what the kind uses */
    mcp_tev_kind kind;
    int64_t id;                          /* the request it is about; -1: none */
    const char *text; size_t len;        /* the message, line or sentence */
    mcp_status status;
    int http_status, sys_errno;
    const char *body; size_t body_len;   /* FAILED: an HTTP error body's start; CLOSED: stderr quote */
    const char *detail;                  /* CLOSED: "exited with status 1" */
    int resumable;                       /* BROKEN: resume can go on from the last event */
    int server_ended;                    /* CLOSED: the server ended on its own */
} mcp_tev;

/* send's flags */
#define MCP_SEND_NOW 1                   /* not a request (a notification, a reply): out now */
#define MCP_SEND_REPEATABLE 2            /* reads only: may go twice if a connection dropped it */
#define MCP_SEND_STREAM 4                /* its answer is a long-lived stream (subscriptions/listen) */
/* mcp_transport.flags */
#define MCP_TRANSPORT_HTTP 1             /* each message is an HTTP request: 2026-07-28's headers
                                            go with it, and closing its stream cancels it */

struct mcp_transport {
    unsigned flags;
    void      *(*open)(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err);
    mcp_status (*send)(void *t, const char *msg, size_t len, int64_t id, const char *headers,
                       unsigned how, mcp_error *err);
    int        (*pollfds)(void *t, mcp_pollfd *fds, int max);
    int64_t    (*due)(void *t);          /* mcp_time_ms() of the next io needed; -1: none */
    void       (*io)(void *t, int wait_ms);
    void       (*abandon)(void *t, int64_t id);          /* optional */
    int        (*close)(void *t, int now, int wait_ms);  /* 1 while it goes on, 0 done */
    void       (*free)(void *t);
    void       (*resume)(void *t, int64_t id);           /* optional from here on */
    void       (*ready)(void *t, const char *version, int modern);
    int        (*busy)(void *t);
    long       (*pid)(void *t);
    void       (*stats)(void *t, mcp_client_stats *add);
    void *user;                          /* open's first argument */
    void       (*authorize)(void *t, const char *authorization);   /* optional */
};
/* Reports an event; MESSAGE returns how many requests it answered: request id, or (id -1)
   any in flight, each counted once. */
MCPAPI int mcp_transport_report(mcp_client *c, const mcp_tev *ev);

#ifndef MCP_NO_HOST
/* ============================================================================================
   >>host  the servers a user configured: config files, many clients in one loop, one tool list
   ============================================================================================
   A host (an editor, an agent, a game's tool panel) keeps every server its user configured
   usable at once. It reads the config files hosts write today, starts every server in
   parallel, drives them all from one loop, offers their tools as one sorted list under
   qualified names ("github__create_issue"), routes calls, reconnects within bounds, and
   offers a slow server's tools from a cache file until it is up. Built only on the client's
   public API; its only I/O of its own is reading and writing its files with <stdio.h>. */

/* ---- >>host.config  config files: "mcpServers" (Claude, Cursor, ...) and "servers" (VS Code) */

/* The files hosts write: {"mcpServers": {name: entry, ...}} (Claude Desktop, Claude Code's
   .mcp.json, Cursor, Windsurf, Cline) and {"servers": {...}, "inputs": [...]} (VS Code's
   .vscode/mcp.json), as JSON with comments and trailing commas; a leading byte order mark is
   skipped. Where both lists are given, "mcpServers" is read (a note says so). An entry:

       "type"      "stdio", "http" or "sse" ("streamable-http", "streamableHttp": "http",
                   noted); when absent, "command" means stdio and "url" means http
       "command"   a non-empty string; "args": an array of strings; "cwd": a string
       "env"       an object of strings: desc.env gets "NAME=value"
       "url"       a non-empty string; "headers": an object of strings: "Name: value"
       "timeout"   milliseconds, a positive whole number: desc.timeout_ms
       "disabled"  true or false; "enabled": the opposite

   null counts as absent. Other fields are ignored, each name noted once a parse. An entry
   whose field has the wrong type, with both "command" and "url" or neither, or a "type"
   its fields do not fit, is bad: it still comes to each, disabled, with its error; the
   others are not affected.

   Variables, in every string value of an entry (command, args, env values, cwd, url, header
   values; not in names): ${VAR} and ${env:VAR} read the environment, then opts.variable;
   ${VAR:-default} the same, then the default (also for an empty value, as in sh); any other
   ${name} (${workspaceFolder}, ${userHome}, ${input:NAME}) asks opts.variable alone. One
   that has no value stays as written, noted once a parse. "$$", a '$' not before '{' and a
   "${" without its '}' stay as they are. An entry's strings, expanded, are bounded by twice
   max_size (past it the entry is bad): a file cannot make the parse allocate without end.

   Every sentence begins with the place it is about, "file:line:column: " (from 1; the
   column counts bytes): where the offending value (or name) stands in the text. */

/* One server as a config file describes it. Its strings and arrays are valid during the
   callback only: copy what you keep. */
typedef struct mcp_server_config {
    const char *name;                    /* any non-empty string; a later entry of the same
                                            name comes later too (the host replaces) */
    mcp_client_desc desc;                /* transport, command, args, env, cwd, url, headers,
                                            timeout_ms; the rest zero. Arrays NULL-ended, NULL
                                            when absent or empty. A bad entry: what was read
                                            before its error */
    int disabled;                        /* "disabled": true, "enabled": false, or a bad entry */
    const char *error;                   /* a bad entry: the sentence (file:line:col: server
                                            "x": ...), and disabled is 1; NULL: it is fine */
    const char *file;                    /* as given to the parse */
    int line, column;                    /* of the entry's name, from 1 */
} mcp_server_config;

typedef struct mcp_config_opts {         /* zero-initialised = defaults */
    void *user;
    /* ${name} for a variable only the program knows (VS Code's workspaceFolder, userHome,
       input:NAME): its value, or NULL when it knows none. ${VAR}, ${VAR:-default} and
       ${env:VAR} read the environment first, unless no_env. */
    const char *(*variable)(void *user, const char *name);
    /* Sentences about what was read and ignored: an unknown field (once each), an unset
       variable (left as written), a type read as another; at most 100 of these a parse,
       then one saying the rest are left out. And each bad entry's error. */
    void (*on_log)(void *user, const char *message);
    int no_env;                          /* never read the process's environment */
    size_t max_size;                     /* bytes of one file; 0: 4 MiB */
} mcp_config_opts;

/* Parses a config file's text and calls each (may be NULL) for every server in it, in file
   order, a bad entry too (with its error); file names the text in sentences (NULL:
   "<config>"). MCP_OK when the text was read, whatever its entries. MCP_ERR_PARSE when the
   text is not JSON (with comments), is not an object, holds neither "mcpServers" nor
   "servers", or that is not an object; MCP_ERR_LIMIT over max_size or nested deeper than
   MCP_JSON_MAX_DEPTH: then each is never called. E.g.
       mcp.json:12:15: server "github": "args" must be an array of strings
       mcp.json:3:1: the file is not valid JSON: expected ',' or '}', found '"' */
MCPAPI mcp_status mcp_config_parse(const char *file, const char *text, size_t len,
                                   const mcp_config_opts *opts,
                                   void (*each)(void *user, const mcp_server_config *server),
                                   mcp_error *err);
/* Writes one server as a config entry, the object alone (its name is the caller's key):
   "type", then the fields that are set ("command" for stdio, "url" otherwise), so that
   mcp_config_parse reads it back to the same description (strings are written as they
   are: a ${VAR} in one is expanded again when read). MCP_ERR_INVALID, the writer's sticky
   error, for what a config file cannot say: a bad entry, MCP_CUSTOM, no command or URL, an
   env item without '=' (an unset), a header that is not "Name: value", timeout_ms < 0. */
MCPAPI mcp_status mcp_config_write(mcp_jw *w, const mcp_server_config *server);

/* ---- >>host.servers  the host and its servers ------------------------------------------ */

typedef struct mcp_host mcp_host;
typedef struct mcp_host_call mcp_host_call;   /* one call routed to a server, then its outcome */

typedef enum mcp_server_state {
    MCP_SERVER_DISABLED = 0,             /* disabled in its config, a bad entry, or by the program */
    MCP_SERVER_IDLE,                     /* not started yet (mcp_host_connect starts it) */
    MCP_SERVER_CONNECTING,               /* starting, saying hello, listing what it offers */
    MCP_SERVER_READY,
    MCP_SERVER_RETRYING,                 /* it ended or failed; the next attempt is at retry_at */
    MCP_SERVER_FAILED,                   /* error says why; a stdio server starts again at the
                                            next call to it (restart policy), else mcp_host_retry */
    MCP_SERVER_NEEDS_AUTH                /* the user has to sign in at auth_url; no timer runs */
} mcp_server_state;

/* What a stdio server that ended gets. HTTP servers always come back with backoff. */
enum {
    MCP_RESTART_ON_CALL = 0,             /* at the next call to it (the default) */
    MCP_RESTART_NEVER,                   /* failed until mcp_host_retry */
    MCP_RESTART_ALWAYS                   /* at once, with the same backoff as HTTP */
};

typedef struct mcp_host_desc {           /* zero-initialised = defaults */
    const char *client_name, *client_version;   /* every client's; NULL: the client's default */
    const char *separator;               /* between server and tool in a qualified name; NULL: "__" */
    /* The program's own naming rule: write the qualified name of (server, name) into out
       (cap bytes with the NUL) and return its length, or 0 to use the default rule. */
    size_t (*qualify)(void *user, const char *server, const char *name, char *out, size_t cap);
    const char *cache_file;              /* tools, prompts and resources of each server, kept
                                            for the next start; NULL: none */
    int restart;                         /* MCP_RESTART_* for stdio servers */
    int restarts_per_minute;             /* stdio restarts of one server; 0: 3 */
    int retry_min_ms, retry_max_ms;      /* backoff: 0: 500 ms doubling up to 300000 (5 min) */
    int retry_limit, retry_window_ms;    /* the breaker: at most retry_limit attempts in
                                            retry_window_ms, then failed; 0: 10 in 600000 */
    int timeout_ms;                      /* a server's when its config has none; 0: 30000 */
    const mcp_tls *tls;                  /* https:// servers need it */
    const mcp_auth *auth;                /* HTTP servers that answer 401 sign in with it
                                            (its open_url is called too); NULL: they fail */
    unsigned capabilities;               /* MCP_CAP_* that on_request answers, for every server */
    mcp_config_opts config;              /* variables and logging for mcp_host_load */
    /* callbacks: all optional, all get `user`; server is the server's name */
    void *user;
    void (*on_state)(void *user, mcp_host *h, const char *server, mcp_server_state state,
                     const mcp_error *why);               /* why: FAILED, RETRYING, DISABLED */
    void (*on_change)(void *user, mcp_host *h, const char *server);  /* its tools, prompts or
                                            resources changed: the lists were rebuilt */
    void (*on_notification)(void *user, mcp_host *h, const char *server, const char *method,
                            const mcp_json *params);
    void (*on_request)(void *user, mcp_host *h, const char *server, mcp_request *req);
    void (*on_stderr)(void *user, mcp_host *h, const char *server, const char *line, size_t len);
    void (*on_log)(void *user, mcp_host *h, const char *server, const char *message);
                                         /* server NULL: about the host or a config file */
} mcp_host_desc;

MCPAPI mcp_host  *mcp_host_new(const mcp_host_desc *desc, mcp_error *err);
MCPAPI void       mcp_host_free(mcp_host *h);     /* closes every server (in parallel) first;
                                                     calls not yet freed fail, detached */
/* Adds the servers of a config file (mcp_host_load_text: of its text), a later server
   replacing an earlier one of the same name: load the user's file, then the project's.
   A bad entry is added disabled with its error; the others are fine. */
MCPAPI mcp_status mcp_host_load(mcp_host *h, const char *path, mcp_error *err);
MCPAPI mcp_status mcp_host_load_text(mcp_host *h, const char *file, const char *text, size_t len,
                                     mcp_error *err);
/* Adds a server from the program's own description (copied; its callbacks and user are the
   host's, replaced), replacing one of the same name. */
MCPAPI mcp_status mcp_host_add(mcp_host *h, const char *name, const mcp_client_desc *desc,
                               mcp_error *err);
/* Starts every server that is idle: all at once, without blocking. */
MCPAPI mcp_status mcp_host_connect(mcp_host *h, mcp_error *err);
/* Blocks until no server is connecting (each ready, failed, retrying, waiting for sign-in or
   disabled), or timeout_ms (-1: no limit): MCP_OK, or MCP_ERR_TIMEOUT. */
MCPAPI mcp_status mcp_host_wait(mcp_host *h, int timeout_ms);
/* The program's choice: disable (closes it), enable (idle, then connect), or retry now (a
   failed or retrying server connects at once, its breaker reset). */
MCPAPI mcp_status mcp_host_disable(mcp_host *h, const char *server, mcp_error *err);
MCPAPI mcp_status mcp_host_enable(mcp_host *h, const char *server, mcp_error *err);
MCPAPI mcp_status mcp_host_retry(mcp_host *h, const char *server, mcp_error *err);
/* The browser came back to the program's own redirect URI for this server (mcp_auth). */
MCPAPI mcp_status mcp_host_auth_redirect(mcp_host *h, const char *server, const char *url,
                                         mcp_error *err);

/* One round for every server: waits up to timeout_ms (0: no wait, -1: until something
   happens) for any of them, then does the I/O, the callbacks, the reconnects. */
MCPAPI mcp_status mcp_host_poll(mcp_host *h, int timeout_ms);
/* For the program's own loop, as for a client (mcp_client_pollfds): then mcp_host_poll(h, 0). */
MCPAPI int mcp_host_pollfds(const mcp_host *h, mcp_pollfd *fds, int max);
MCPAPI int mcp_host_pollfd_count(const mcp_host *h);
MCPAPI int mcp_host_next_timeout(const mcp_host *h);

typedef struct mcp_host_server {         /* a server, as mcp_host_server_get tells it */
    const char *name;
    mcp_server_state state;
    mcp_transport_kind transport;
    const char *file;                    /* the config file it came from; NULL: mcp_host_add */
    const mcp_error *error;              /* its last failure; NULL: none */
    int64_t retry_at;                    /* RETRYING: mcp_time_ms() of the next attempt */
    const char *auth_url;                /* NEEDS_AUTH: the page to show the user */
    int attempts;                        /* connects since it was last ready */
    size_t tools, prompts, resources;    /* what it offers (from the cache while cached) */
    int cached;                          /* its lists come from the cache file, not from it yet */
    mcp_client *client;                  /* while it has one: for what the host does not wrap
                                            (valid until the next mcp_host_poll) */
} mcp_host_server;
MCPAPI size_t     mcp_host_server_count(const mcp_host *h);
MCPAPI mcp_status mcp_host_server_get(const mcp_host *h, size_t i, mcp_host_server *out); /* in
                                            the order added; MCP_ERR_INVALID past the end */
MCPAPI long       mcp_host_server_find(const mcp_host *h, const char *name);   /* index; -1 */

/* ---- >>host.lists  one tool list, one prompt list, one resource list ---------------------- */

/* Every ready (or cached) server's tools (and prompts; resources by URI), sorted by
   qualified name, "server__tool": model APIs take these names ([A-Za-z0-9_-], at most 64
   bytes). Other bytes become '_'; a name longer than 64, or one that the mapping made equal
   to another, is cut and ends in '_' and 8 hex digits of a hash of the original pair, so it
   stays the same from run to run. Two servers' names that are still equal: the first server
   (in the order added) keeps it, and on_log says which was left out. desc.qualify replaces
   the rule. item is the server's own object (its "name" unqualified). Valid until the next
   mcp_host_poll. */
typedef struct mcp_host_item {
    const char *qualified;               /* tools, prompts: the name to use; resources: the URI */
    const char *server;
    const char *name;                    /* the server's own name (or URI) */
    const mcp_json *item;                /* {"name", "description", "inputSchema", ...} */
} mcp_host_item;
typedef enum mcp_host_kind { MCP_HOST_TOOLS = 0, MCP_HOST_PROMPTS, MCP_HOST_RESOURCES } mcp_host_kind;
MCPAPI size_t     mcp_host_count(const mcp_host *h, mcp_host_kind which);
MCPAPI mcp_status mcp_host_item_get(const mcp_host *h, mcp_host_kind which, size_t i,
                                    mcp_host_item *out);
/* The list as one document, {"tools": [...]} (or "prompts", "resources"), each object the
   server's with "name" qualified: what a model's prompt gets. mcp_json_free it. */
MCPAPI mcp_status mcp_host_list(mcp_host *h, mcp_host_kind which, mcp_json_doc **result,
                                mcp_error *err);

/* ---- >>host.calls  calls routed by qualified name --------------------------------------- */

/* Blocking: waits for a server still connecting or reconnecting (up to the call's timeout),
   starts a stdio server that ended (restart policy). Errors name the server:
   Server "github": Transport closed. */
MCPAPI mcp_status mcp_host_call_tool(mcp_host *h, const char *qualified, const char *args_json,
                                     mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_host_get_prompt(mcp_host *h, const char *qualified, const char *args_json,
                                      mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_host_read_resource(mcp_host *h, const char *uri, mcp_json_doc **result,
                                         mcp_error *err);
/* Non-blocking, as mcp_client_send: drive with mcp_host_poll. server: the server's name. */
MCPAPI mcp_host_call *mcp_host_send_tool(mcp_host *h, const char *qualified, const char *args_json,
                                         const mcp_call_opts *opts, mcp_error *err);
MCPAPI mcp_host_call *mcp_host_send(mcp_host *h, const char *server, const char *method,
                                    const char *params_json, const mcp_call_opts *opts,
                                    mcp_error *err);
MCPAPI mcp_status mcp_host_call_status(const mcp_host_call *hc);     /* MCP_AGAIN in flight */
MCPAPI mcp_status mcp_host_call_result(mcp_host_call *hc, mcp_json_doc **result, mcp_error *err);
MCPAPI mcp_status mcp_host_call_cancel(mcp_host_call *hc, const char *reason);
MCPAPI mcp_status mcp_host_call_wait(mcp_host_call *hc, int timeout_ms);   /* polls the host */
MCPAPI void       mcp_host_call_free(mcp_host_call *hc);
#endif /* MCP_NO_HOST */
#endif /* a transport */

#ifdef __cplusplus
}
#endif

#endif /* MCP_H_INCLUDED */

#if defined(MCP_IMPLEMENTATION) && !defined(MCP_IMPLEMENTATION_ONCE)
#define MCP_IMPLEMENTATION_ONCE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <time.h>
#include <errno.h>
#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
#include <poll.h>
#endif
#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/socket.h>
#endif
#ifndef MCP_NO_HTTP
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>
#endif
#ifndef MCP_NO_STDIO
#include <sys/stat.h>
#include <sys/wait.h>
#if defined(__linux__) && !defined(_GNU_SOURCE) && !defined(__cplusplus)
int pipe2(int fds[2], int flags);   /* Linux: glibc and musl have it, their headers hide it */
long syscall(long number, ...);
#endif
#ifdef __linux__
#include <sys/syscall.h>
#endif
#endif
#ifndef MCP_NO_AUTH
/* mcp_random's system call, chosen here since it needs a libc header's version macros:
   1 getrandom (Linux: glibc 2.25 and later; musl 1.1.20 and later, which has <sys/random.h>),
   2 getentropy (macOS 10.12, FreeBSD 12, OpenBSD 5.6 and later), 0 none: /dev/urandom alone.
   A call the running kernel lacks (ENOSYS) falls back to /dev/urandom too.
   tests/standalone_random.c sets MCP__RANDOM itself to run the getentropy path on Linux. */
#ifndef MCP__RANDOM
#if defined(__linux__) && defined(__GLIBC__) && !defined(__UCLIBC__)
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25)
#define MCP__RANDOM 1
#endif
#elif defined(__linux__) && !defined(__GLIBC__) && !defined(__ANDROID__) && defined(__has_include)
#if __has_include(<sys/random.h>)
#define MCP__RANDOM 1
#endif
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__)
#define MCP__RANDOM 2
#endif
#endif
#ifndef MCP__RANDOM
#define MCP__RANDOM 0
#endif
#include <unistd.h>
#include <fcntl.h>
#include <sys/types.h>
#if MCP__RANDOM == 1 || (MCP__RANDOM == 2 && (defined(__APPLE__) || defined(__GLIBC__)))
#include <sys/random.h>
#endif
#endif

#if defined(MCP_MALLOC) && defined(MCP_REALLOC) && defined(MCP_FREE)
/* all three supplied */
#elif !defined(MCP_MALLOC) && !defined(MCP_REALLOC) && !defined(MCP_FREE)
#define MCP_MALLOC(sz, ctx) ((void)(ctx), malloc(sz))
#define MCP_REALLOC(p, sz, ctx) ((void)(ctx), realloc((p), (sz)))
#define MCP_FREE(p, ctx) ((void)(ctx), free(p))
#else
#error "Must define all or none of MCP_MALLOC, MCP_REALLOC and MCP_FREE."
#endif

#ifndef MCP_ASSERT
#include <assert.h>
#define MCP_ASSERT(x) assert(x)
#endif

#ifndef MCPDEF
#ifdef MCP_STATIC
#define MCPDEF static
#else
#define MCPDEF
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MCP__LIKELY(x) __builtin_expect(!!(x), 1)
#define MCP__INLINE __inline__ __attribute__((always_inline))
#define MCP__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MCP__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define MCP__UNUSED __attribute__((unused))   /* a static function nothing may call yet */
#else
#define MCP__LIKELY(x) (x)
#define MCP__INLINE
#define MCP__UNLIKELY(x) (x)
#define MCP__PRINTF(f, a)
#define MCP__UNUSED
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
   >>base
   ============================================================================================ */

MCPDEF const char *mcp_status_str(mcp_status s)
{
    switch (s) {
    case MCP_OK: return "MCP_OK: success";
    case MCP_AGAIN: return "MCP_AGAIN: not finished yet";
    case MCP_ERR_NOMEM: return "MCP_ERR_NOMEM: out of memory";
    case MCP_ERR_INVALID: return "MCP_ERR_INVALID: invalid argument";
    case MCP_ERR_PARSE: return "MCP_ERR_PARSE: malformed input";
    case MCP_ERR_LIMIT: return "MCP_ERR_LIMIT: a size or depth limit was exceeded";
    case MCP_ERR_IO: return "MCP_ERR_IO: an operating system call failed";
    case MCP_ERR_CLOSED: return "MCP_ERR_CLOSED: transport closed";
    case MCP_ERR_TIMEOUT: return "MCP_ERR_TIMEOUT: timed out";
    case MCP_ERR_CANCELLED: return "MCP_ERR_CANCELLED: cancelled";
    case MCP_ERR_HTTP: return "MCP_ERR_HTTP: HTTP error status";
    case MCP_ERR_RPC: return "MCP_ERR_RPC: JSON-RPC error response";
    case MCP_ERR_PROTOCOL: return "MCP_ERR_PROTOCOL: the peer broke the protocol";
    case MCP_ERR_AUTH: return "MCP_ERR_AUTH: authorization failed or needs the user";
    }
    return "unknown mcp_status";
}

MCPDEF void mcp_free(void *p) { MCP_FREE(p, NULL); }

static mcp_status mcp__fail(mcp_error *err, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);

MCPDEF int64_t mcp_time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#ifndef MCP_NO_AUTH
/* The random source, base's only OS access besides the clock. Each reader returns 0 or the
   errno, and sets *what to the step that failed, for the sentence. */
#if MCP__RANDOM == 2 && !defined(__APPLE__) && !defined(__GLIBC__)
int getentropy(void *buf, size_t len);   /* POSIX 2024; BSD headers hide it from POSIX 2008 */
#endif

#if MCP__RANDOM == 1
/* Short reads happen above 256 bytes, and a signal can interrupt one that waits at boot. */
static int mcp__random_call(unsigned char *p, size_t len, const char **what)
{
    *what = "getrandom failed";
    while (len) {
        ssize_t r = getrandom(p, len, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno;
        p += r; len -= (size_t)r;
    }
    return 0;
}
#elif MCP__RANDOM == 2
static int mcp__random_call(unsigned char *p, size_t len, const char **what)
{
    *what = "getentropy failed";
    while (len) {
        size_t n = len < 256 ? len : 256;   /* its limit for one call */
        if (getentropy(p, n) != 0) return errno;
        p += n; len -= n;
    }
    return 0;
}
#endif

static int mcp__random_urandom(unsigned char *p, size_t len, const char **what)
{
    int fd, e = 0, flags = O_RDONLY;
#ifdef O_CLOEXEC
    flags |= O_CLOEXEC;   /* a child spawned meanwhile by another thread must not inherit it */
#endif
    do fd = open("/dev/urandom", flags); while (fd < 0 && errno == EINTR);
    if (fd < 0) { *what = "could not open /dev/urandom"; return errno; }
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { e = r < 0 ? errno : EIO; *what = "reading /dev/urandom failed"; break; }
        p += r; len -= (size_t)r;
    }
    close(fd);
    return e;
}

MCPDEF mcp_status mcp_random(void *buf, size_t len, mcp_error *err)
{
    const char *what = "";
    int e = ENOSYS;
    if (!buf && len)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_random was given no buffer for %lu bytes.",
                         (unsigned long)len);
#if MCP__RANDOM
    e = mcp__random_call((unsigned char *)buf, len, &what);
#endif
    if (e == ENOSYS) e = mcp__random_urandom((unsigned char *)buf, len, &what);
    if (!e) return MCP_OK;
    mcp__fail(err, MCP_ERR_IO, "Could not read the system's random source: %s: %s.", what, strerror(e));
    if (err) err->sys_errno = e;
    return MCP_ERR_IO;
}
#endif /* MCP_NO_AUTH */

MCPDEF mcp_status mcp_buf_reserve(mcp_buf *b, size_t more)
{
    size_t cap;
    char *nd;
    if (b->cap - b->len >= more) return MCP_OK;
    if (more > ((size_t)-1) / 2 - b->len) return MCP_ERR_NOMEM;
    cap = b->cap ? b->cap : 64;
    while (cap - b->len < more) cap *= 2;
    nd = (char *)MCP_REALLOC(b->data, cap, NULL);
    if (!nd) return MCP_ERR_NOMEM;
    b->data = nd; b->cap = cap;
    return MCP_OK;
}

MCPDEF mcp_status mcp_buf_append(mcp_buf *b, const void *data, size_t n)
{
    if (mcp_buf_reserve(b, n) != MCP_OK) return MCP_ERR_NOMEM;
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    return MCP_OK;
}

MCPDEF void mcp_buf_free(mcp_buf *b)
{
    if (!b) return;
    MCP_FREE(b->data, NULL);
    b->data = NULL; b->len = b->cap = 0;
}

static mcp_status mcp__fail(mcp_error *err, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    if (!err) return st;
    memset(err, 0, sizeof *err - sizeof err->message);
    err->status = st;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return st;
}

static void mcp__ok(mcp_error *err)
{
    if (err) { err->status = MCP_OK; err->http_status = 0; err->rpc_code = 0;
               err->sys_errno = 0; err->message[0] = 0; }
}

static int mcp__ctz64(uint64_t x)   /* x != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

static int mcp__clz64(uint64_t x);

/* Index of the first byte in memory order with a nonzero mask bit, for the 8-byte scanners.
   It never lands past the first truly special byte (on big-endian, SWAR false positives can
   only come before it); the byte loops after it decide exactly. Unknown order: 0. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MCP__FIRST_BYTE(m) (mcp__ctz64(m) >> 3)
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MCP__FIRST_BYTE(m) (mcp__clz64(m) >> 3)
#else
#define MCP__FIRST_BYTE(m) 0
#endif

static int mcp__clz64(uint64_t x)   /* x != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & ((uint64_t)1 << 63))) { x <<= 1; n++; }
    return n;
#endif
}

/* 64x64 -> 128-bit product: returns the low half, *hi gets the high half. */
#if defined(__SIZEOF_INT128__) && !defined(__TINYC__)
__extension__ typedef unsigned __int128 mcp__u128;
static uint64_t mcp__mul128(uint64_t a, uint64_t b, uint64_t *hi)
{
    mcp__u128 p = (mcp__u128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
}
#else
static uint64_t mcp__mul128(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return (mid << 32) | (ll & 0xFFFFFFFFu);
}
#endif

static uint64_t mcp__dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double mcp__bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

#ifndef MCP_NO_AUTH
/* ---- SHA-256, FIPS 180-4: the functions of section 4.1.2, the constants of 4.2.2 and 5.3.3,
   the computation of 6.2.2. Words are read and written big-endian byte by byte, so the host's
   byte order and the data's alignment do not matter. */
static uint32_t mcp__rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static uint32_t mcp__sha256_ch(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (~x & z); }
static uint32_t mcp__sha256_maj(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
static uint32_t mcp__sha256_bsig0(uint32_t x) { return mcp__rotr32(x, 2) ^ mcp__rotr32(x, 13) ^ mcp__rotr32(x, 22); }
static uint32_t mcp__sha256_bsig1(uint32_t x) { return mcp__rotr32(x, 6) ^ mcp__rotr32(x, 11) ^ mcp__rotr32(x, 25); }
static uint32_t mcp__sha256_ssig0(uint32_t x) { return mcp__rotr32(x, 7) ^ mcp__rotr32(x, 18) ^ (x >> 3); }
static uint32_t mcp__sha256_ssig1(uint32_t x) { return mcp__rotr32(x, 17) ^ mcp__rotr32(x, 19) ^ (x >> 10); }

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t mcp__sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* One 64-byte block into the hash value st: the message schedule, then the 64 rounds. */
static void mcp__sha256_block(uint32_t st[8], const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
    int t;
    for (t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (t = 16; t < 64; t++)
        w[t] = mcp__sha256_ssig1(w[t - 2]) + w[t - 7] + mcp__sha256_ssig0(w[t - 15]) + w[t - 16];
    a = st[0]; b = st[1]; c = st[2]; d = st[3]; e = st[4]; f = st[5]; g = st[6]; h = st[7];
    for (t = 0; t < 64; t++) {
        t1 = h + mcp__sha256_bsig1(e) + mcp__sha256_ch(e, f, g) + mcp__sha256_k[t] + w[t];
        t2 = mcp__sha256_bsig0(a) + mcp__sha256_maj(a, b, c);
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    st[0] += a; st[1] += b; st[2] += c; st[3] += d; st[4] += e; st[5] += f; st[6] += g; st[7] += h;
}

MCPDEF void mcp_sha256(const void *data, size_t len, unsigned char out[32])
{
    static const uint32_t init[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    const unsigned char *p = (const unsigned char *)data;
    size_t full = len & ~(size_t)63, rest = len - full, end, i;
    uint64_t bits = (uint64_t)len << 3;   /* the standard's limit, 2^64 bits, is beyond memory */
    unsigned char tail[128];
    uint32_t st[8];
    memcpy(st, init, sizeof st);
    for (i = 0; i < full; i += 64) mcp__sha256_block(st, p + i);
    /* Padding (5.1.1): a 1 bit, zeros, then the length in bits; two blocks if no room for it. */
    end = rest < 56 ? 64 : 128;
    if (rest) memcpy(tail, p + full, rest);
    tail[rest] = 0x80;
    memset(tail + rest + 1, 0, end - 8 - rest - 1);
    for (i = 0; i < 8; i++) tail[end - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (i = 0; i < end; i += 64) mcp__sha256_block(st, tail + i);
    for (i = 0; i < 32; i++) out[i] = (unsigned char)(st[i / 4] >> (24 - 8 * (i % 4)));
}

MCPDEF size_t mcp_base64url(const void *data, size_t len, char *out, size_t cap)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const unsigned char *p = (const unsigned char *)data;
    size_t total, i, k, n, o = 0;
    if (len / 3 > ((size_t)-1 - 4) / 4) {   /* 4 per 3 bytes, up to 3 more and the NUL */
        if (cap) out[0] = 0;
        return (size_t)-1;
    }
    total = len / 3 * 4 + (len % 3 ? len % 3 + 1 : 0);
    if (!cap) return total;
    for (i = 0; i < len && o + 1 < cap; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        char q[4];
        if (i + 1 < len) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len) v |= p[i + 2];
        q[0] = digits[v >> 18]; q[1] = digits[(v >> 12) & 63];
        q[2] = digits[(v >> 6) & 63]; q[3] = digits[v & 63];
        n = len - i < 3 ? len - i + 1 : 4;   /* a last 1 or 2 bytes give 2 or 3 digits */
        for (k = 0; k < n && o + 1 < cap; k++) out[o++] = q[k];
    }
    out[o] = 0;
    return total;
}
#endif /* MCP_NO_AUTH */

/* ============================================================================================
   >>json
   ============================================================================================ */

/* A value is 16 bytes. Arrays and objects point at their children, stored contiguously in
   the document's arena; an object's children alternate key (a string value), value. */
enum { MCP__NUM_INT = 1, MCP__STR_PLAIN = 2, MCP__NUM_INEXACT = 4 };
struct mcp_json {
    unsigned char type, flags;   /* mcp_json_type; MCP__NUM_INT when u.i holds the number (MCP__NUM_INEXACT: a whole double rounded from another literal),
                                    MCP__STR_PLAIN when the string needs no escaping */
    uint32_t len;                /* string bytes, array items, object members */
    union { double d; int64_t i; const char *s; const mcp_json *kids; } u;
};

typedef struct mcp__block { struct mcp__block *next; size_t cap, used; } mcp__block;

struct mcp_json_doc {
    mcp_json root;
    mcp__block *blocks;          /* newest first; the first block also holds this struct */
    void *ctx;
    int multiline;               /* the text had CR or LF (as whitespace: all JSON allows) */
    int deep;                    /* containers nested deeper than the parser's inline frames */
};

/* ---- arena ----------------------------------------------------------------------------- */

#define MCP__ALIGN 8
#define MCP__HDR ((sizeof(mcp__block) + MCP__ALIGN - 1) & ~(size_t)(MCP__ALIGN - 1))

static mcp__block *mcp__block_new(size_t cap, void *ctx)
{
    mcp__block *b = (mcp__block *)MCP_MALLOC(MCP__HDR + cap, ctx);
    if (!b) return NULL;
    b->next = NULL; b->cap = cap; b->used = 0;
    return b;
}

/* Bump allocation; align is 1 for strings, 8 for values. Grows by doubling. */
static MCP__INLINE void *mcp__alloc(mcp_json_doc *d, size_t n, size_t align)
{
    mcp__block *b = d->blocks;
    size_t at = (b->used + align - 1) & ~(align - 1);
    if (MCP__UNLIKELY(at + n > b->cap || at < b->used)) {
        size_t cap = b->cap * 2;
        mcp__block *nb;
        if (cap < n) cap = n;
        if (cap < n || n > ((size_t)-1) / 2) return NULL;
        nb = mcp__block_new(cap, d->ctx);
        if (!nb) return NULL;
        nb->next = b; d->blocks = nb; b = nb; at = 0;
    }
    b->used = at + n;
    return (char *)b + MCP__HDR + at;
}

/* ---- numbers: text to double ------------------------------------------------------------
   Three tiers, all exact: Clinger's fast path (small mantissa and power of ten), the
   Eisel-Lemire algorithm on 128-bit powers of ten, and, for the rare inputs those cannot
   decide, a big-decimal conversion (800 digits, with a sticky "truncated" bit). */

/* 10^e for e in [-348, 347]: 128-bit significands rounded down, top bit set, {high, low}.
   Generated by exact integer arithmetic (tests/gen_pow10.py). */
static const uint64_t mcp__pow10_128[696][2] = {
    {0xfa8fd5a0081c0288u,0x1732c869cd60e453u},{0x9c99e58405118195u,0x0e7fbd42205c8eb4u},
    {0xc3c05ee50655e1fau,0x521fac92a873b261u},{0xf4b0769e47eb5a78u,0xe6a797b752909ef9u},
    {0x98ee4a22ecf3188bu,0x9028bed2939a635cu},{0xbf29dcaba82fdeaeu,0x7432ee873880fc33u},
    {0xeef453d6923bd65au,0x113faa2906a13b3fu},{0x9558b4661b6565f8u,0x4ac7ca59a424c507u},
    {0xbaaee17fa23ebf76u,0x5d79bcf00d2df649u},{0xe95a99df8ace6f53u,0xf4d82c2c107973dcu},
    {0x91d8a02bb6c10594u,0x79071b9b8a4be869u},{0xb64ec836a47146f9u,0x9748e2826cdee284u},
    {0xe3e27a444d8d98b7u,0xfd1b1b2308169b25u},{0x8e6d8c6ab0787f72u,0xfe30f0f5e50e20f7u},
    {0xb208ef855c969f4fu,0xbdbd2d335e51a935u},{0xde8b2b66b3bc4723u,0xad2c788035e61382u},
    {0x8b16fb203055ac76u,0x4c3bcb5021afcc31u},{0xaddcb9e83c6b1793u,0xdf4abe242a1bbf3du},
    {0xd953e8624b85dd78u,0xd71d6dad34a2af0du},{0x87d4713d6f33aa6bu,0x8672648c40e5ad68u},
    {0xa9c98d8ccb009506u,0x680efdaf511f18c2u},{0xd43bf0effdc0ba48u,0x0212bd1b2566def2u},
    {0x84a57695fe98746du,0x014bb630f7604b57u},{0xa5ced43b7e3e9188u,0x419ea3bd35385e2du},
    {0xcf42894a5dce35eau,0x52064cac828675b9u},{0x818995ce7aa0e1b2u,0x7343efebd1940993u},
    {0xa1ebfb4219491a1fu,0x1014ebe6c5f90bf8u},{0xca66fa129f9b60a6u,0xd41a26e077774ef6u},
    {0xfd00b897478238d0u,0x8920b098955522b4u},{0x9e20735e8cb16382u,0x55b46e5f5d5535b0u},
    {0xc5a890362fddbc62u,0xeb2189f734aa831du},{0xf712b443bbd52b7bu,0xa5e9ec7501d523e4u},
    {0x9a6bb0aa55653b2du,0x47b233c92125366eu},{0xc1069cd4eabe89f8u,0x999ec0bb696e840au},
    {0xf148440a256e2c76u,0xc00670ea43ca250du},{0x96cd2a865764dbcau,0x380406926a5e5728u},
    {0xbc807527ed3e12bcu,0xc605083704f5ecf2u},{0xeba09271e88d976bu,0xf7864a44c633682eu},
    {0x93445b8731587ea3u,0x7ab3ee6afbe0211du},{0xb8157268fdae9e4cu,0x5960ea05bad82964u},
    {0xe61acf033d1a45dfu,0x6fb92487298e33bdu},{0x8fd0c16206306babu,0xa5d3b6d479f8e056u},
    {0xb3c4f1ba87bc8696u,0x8f48a4899877186cu},{0xe0b62e2929aba83cu,0x331acdabfe94de87u},
    {0x8c71dcd9ba0b4925u,0x9ff0c08b7f1d0b14u},{0xaf8e5410288e1b6fu,0x07ecf0ae5ee44dd9u},
    {0xdb71e91432b1a24au,0xc9e82cd9f69d6150u},{0x892731ac9faf056eu,0xbe311c083a225cd2u},
    {0xab70fe17c79ac6cau,0x6dbd630a48aaf406u},{0xd64d3d9db981787du,0x092cbbccdad5b108u},
    {0x85f0468293f0eb4eu,0x25bbf56008c58ea5u},{0xa76c582338ed2621u,0xaf2af2b80af6f24eu},
    {0xd1476e2c07286faau,0x1af5af660db4aee1u},{0x82cca4db847945cau,0x50d98d9fc890ed4du},
    {0xa37fce126597973cu,0xe50ff107bab528a0u},{0xcc5fc196fefd7d0cu,0x1e53ed49a96272c8u},
    {0xff77b1fcbebcdc4fu,0x25e8e89c13bb0f7au},{0x9faacf3df73609b1u,0x77b191618c54e9acu},
    {0xc795830d75038c1du,0xd59df5b9ef6a2417u},{0xf97ae3d0d2446f25u,0x4b0573286b44ad1du},
    {0x9becce62836ac577u,0x4ee367f9430aec32u},{0xc2e801fb244576d5u,0x229c41f793cda73fu},
    {0xf3a20279ed56d48au,0x6b43527578c1110fu},{0x9845418c345644d6u,0x830a13896b78aaa9u},
    {0xbe5691ef416bd60cu,0x23cc986bc656d553u},{0xedec366b11c6cb8fu,0x2cbfbe86b7ec8aa8u},
    {0x94b3a202eb1c3f39u,0x7bf7d71432f3d6a9u},{0xb9e08a83a5e34f07u,0xdaf5ccd93fb0cc53u},
    {0xe858ad248f5c22c9u,0xd1b3400f8f9cff68u},{0x91376c36d99995beu,0x23100809b9c21fa1u},
    {0xb58547448ffffb2du,0xabd40a0c2832a78au},{0xe2e69915b3fff9f9u,0x16c90c8f323f516cu},
    {0x8dd01fad907ffc3bu,0xae3da7d97f6792e3u},{0xb1442798f49ffb4au,0x99cd11cfdf41779cu},
    {0xdd95317f31c7fa1du,0x40405643d711d583u},{0x8a7d3eef7f1cfc52u,0x482835ea666b2572u},
    {0xad1c8eab5ee43b66u,0xda3243650005eecfu},{0xd863b256369d4a40u,0x90bed43e40076a82u},
    {0x873e4f75e2224e68u,0x5a7744a6e804a291u},{0xa90de3535aaae202u,0x711515d0a205cb36u},
    {0xd3515c2831559a83u,0x0d5a5b44ca873e03u},{0x8412d9991ed58091u,0xe858790afe9486c2u},
    {0xa5178fff668ae0b6u,0x626e974dbe39a872u},{0xce5d73ff402d98e3u,0xfb0a3d212dc8128fu},
    {0x80fa687f881c7f8eu,0x7ce66634bc9d0b99u},{0xa139029f6a239f72u,0x1c1fffc1ebc44e80u},
    {0xc987434744ac874eu,0xa327ffb266b56220u},{0xfbe9141915d7a922u,0x4bf1ff9f0062baa8u},
    {0x9d71ac8fada6c9b5u,0x6f773fc3603db4a9u},{0xc4ce17b399107c22u,0xcb550fb4384d21d3u},
    {0xf6019da07f549b2bu,0x7e2a53a146606a48u},{0x99c102844f94e0fbu,0x2eda7444cbfc426du},
    {0xc0314325637a1939u,0xfa911155fefb5308u},{0xf03d93eebc589f88u,0x793555ab7eba27cau},
    {0x96267c7535b763b5u,0x4bc1558b2f3458deu},{0xbbb01b9283253ca2u,0x9eb1aaedfb016f16u},
    {0xea9c227723ee8bcbu,0x465e15a979c1cadcu},{0x92a1958a7675175fu,0x0bfacd89ec191ec9u},
    {0xb749faed14125d36u,0xcef980ec671f667bu},{0xe51c79a85916f484u,0x82b7e12780e7401au},
    {0x8f31cc0937ae58d2u,0xd1b2ecb8b0908810u},{0xb2fe3f0b8599ef07u,0x861fa7e6dcb4aa15u},
    {0xdfbdcece67006ac9u,0x67a791e093e1d49au},{0x8bd6a141006042bdu,0xe0c8bb2c5c6d24e0u},
    {0xaecc49914078536du,0x58fae9f773886e18u},{0xda7f5bf590966848u,0xaf39a475506a899eu},
    {0x888f99797a5e012du,0x6d8406c952429603u},{0xaab37fd7d8f58178u,0xc8e5087ba6d33b83u},
    {0xd5605fcdcf32e1d6u,0xfb1e4a9a90880a64u},{0x855c3be0a17fcd26u,0x5cf2eea09a55067fu},
    {0xa6b34ad8c9dfc06fu,0xf42faa48c0ea481eu},{0xd0601d8efc57b08bu,0xf13b94daf124da26u},
    {0x823c12795db6ce57u,0x76c53d08d6b70858u},{0xa2cb1717b52481edu,0x54768c4b0c64ca6eu},
    {0xcb7ddcdda26da268u,0xa9942f5dcf7dfd09u},{0xfe5d54150b090b02u,0xd3f93b35435d7c4cu},
    {0x9efa548d26e5a6e1u,0xc47bc5014a1a6dafu},{0xc6b8e9b0709f109au,0x359ab6419ca1091bu},
    {0xf867241c8cc6d4c0u,0xc30163d203c94b62u},{0x9b407691d7fc44f8u,0x79e0de63425dcf1du},
    {0xc21094364dfb5636u,0x985915fc12f542e4u},{0xf294b943e17a2bc4u,0x3e6f5b7b17b2939du},
    {0x979cf3ca6cec5b5au,0xa705992ceecf9c42u},{0xbd8430bd08277231u,0x50c6ff782a838353u},
    {0xece53cec4a314ebdu,0xa4f8bf5635246428u},{0x940f4613ae5ed136u,0x871b7795e136be99u},
    {0xb913179899f68584u,0x28e2557b59846e3fu},{0xe757dd7ec07426e5u,0x331aeada2fe589cfu},
    {0x9096ea6f3848984fu,0x3ff0d2c85def7621u},{0xb4bca50b065abe63u,0x0fed077a756b53a9u},
    {0xe1ebce4dc7f16dfbu,0xd3e8495912c62894u},{0x8d3360f09cf6e4bdu,0x64712dd7abbbd95cu},
    {0xb080392cc4349decu,0xbd8d794d96aacfb3u},{0xdca04777f541c567u,0xecf0d7a0fc5583a0u},
    {0x89e42caaf9491b60u,0xf41686c49db57244u},{0xac5d37d5b79b6239u,0x311c2875c522ced5u},
    {0xd77485cb25823ac7u,0x7d633293366b828bu},{0x86a8d39ef77164bcu,0xae5dff9c02033197u},
    {0xa8530886b54dbdebu,0xd9f57f830283fdfcu},{0xd267caa862a12d66u,0xd072df63c324fd7bu},
    {0x8380dea93da4bc60u,0x4247cb9e59f71e6du},{0xa46116538d0deb78u,0x52d9be85f074e608u},
    {0xcd795be870516656u,0x67902e276c921f8bu},{0x806bd9714632dff6u,0x00ba1cd8a3db53b6u},
    {0xa086cfcd97bf97f3u,0x80e8a40eccd228a4u},{0xc8a883c0fdaf7df0u,0x6122cd128006b2cdu},
    {0xfad2a4b13d1b5d6cu,0x796b805720085f81u},{0x9cc3a6eec6311a63u,0xcbe3303674053bb0u},
    {0xc3f490aa77bd60fcu,0xbedbfc4411068a9cu},{0xf4f1b4d515acb93bu,0xee92fb5515482d44u},
    {0x991711052d8bf3c5u,0x751bdd152d4d1c4au},{0xbf5cd54678eef0b6u,0xd262d45a78a0635du},
    {0xef340a98172aace4u,0x86fb897116c87c34u},{0x9580869f0e7aac0eu,0xd45d35e6ae3d4da0u},
    {0xbae0a846d2195712u,0x8974836059cca109u},{0xe998d258869facd7u,0x2bd1a438703fc94bu},
    {0x91ff83775423cc06u,0x7b6306a34627ddcfu},{0xb67f6455292cbf08u,0x1a3bc84c17b1d542u},
    {0xe41f3d6a7377eecau,0x20caba5f1d9e4a93u},{0x8e938662882af53eu,0x547eb47b7282ee9cu},
    {0xb23867fb2a35b28du,0xe99e619a4f23aa43u},{0xdec681f9f4c31f31u,0x6405fa00e2ec94d4u},
    {0x8b3c113c38f9f37eu,0xde83bc408dd3dd04u},{0xae0b158b4738705eu,0x9624ab50b148d445u},
    {0xd98ddaee19068c76u,0x3badd624dd9b0957u},{0x87f8a8d4cfa417c9u,0xe54ca5d70a80e5d6u},
    {0xa9f6d30a038d1dbcu,0x5e9fcf4ccd211f4cu},{0xd47487cc8470652bu,0x7647c3200069671fu},
    {0x84c8d4dfd2c63f3bu,0x29ecd9f40041e073u},{0xa5fb0a17c777cf09u,0xf468107100525890u},
    {0xcf79cc9db955c2ccu,0x7182148d4066eeb4u},{0x81ac1fe293d599bfu,0xc6f14cd848405530u},
    {0xa21727db38cb002fu,0xb8ada00e5a506a7cu},{0xca9cf1d206fdc03bu,0xa6d90811f0e4851cu},
    {0xfd442e4688bd304au,0x908f4a166d1da663u},{0x9e4a9cec15763e2eu,0x9a598e4e043287feu},
    {0xc5dd44271ad3cdbau,0x40eff1e1853f29fdu},{0xf7549530e188c128u,0xd12bee59e68ef47cu},
    {0x9a94dd3e8cf578b9u,0x82bb74f8301958ceu},{0xc13a148e3032d6e7u,0xe36a52363c1faf01u},
    {0xf18899b1bc3f8ca1u,0xdc44e6c3cb279ac1u},{0x96f5600f15a7b7e5u,0x29ab103a5ef8c0b9u},
    {0xbcb2b812db11a5deu,0x7415d448f6b6f0e7u},{0xebdf661791d60f56u,0x111b495b3464ad21u},
    {0x936b9fcebb25c995u,0xcab10dd900beec34u},{0xb84687c269ef3bfbu,0x3d5d514f40eea742u},
    {0xe65829b3046b0afau,0x0cb4a5a3112a5112u},{0x8ff71a0fe2c2e6dcu,0x47f0e785eaba72abu},
    {0xb3f4e093db73a093u,0x59ed216765690f56u},{0xe0f218b8d25088b8u,0x306869c13ec3532cu},
    {0x8c974f7383725573u,0x1e414218c73a13fbu},{0xafbd2350644eeacfu,0xe5d1929ef90898fau},
    {0xdbac6c247d62a583u,0xdf45f746b74abf39u},{0x894bc396ce5da772u,0x6b8bba8c328eb783u},
    {0xab9eb47c81f5114fu,0x066ea92f3f326564u},{0xd686619ba27255a2u,0xc80a537b0efefebdu},
    {0x8613fd0145877585u,0xbd06742ce95f5f36u},{0xa798fc4196e952e7u,0x2c48113823b73704u},
    {0xd17f3b51fca3a7a0u,0xf75a15862ca504c5u},{0x82ef85133de648c4u,0x9a984d73dbe722fbu},
    {0xa3ab66580d5fdaf5u,0xc13e60d0d2e0ebbau},{0xcc963fee10b7d1b3u,0x318df905079926a8u},
    {0xffbbcfe994e5c61fu,0xfdf17746497f7052u},{0x9fd561f1fd0f9bd3u,0xfeb6ea8bedefa633u},
    {0xc7caba6e7c5382c8u,0xfe64a52ee96b8fc0u},{0xf9bd690a1b68637bu,0x3dfdce7aa3c673b0u},
    {0x9c1661a651213e2du,0x06bea10ca65c084eu},{0xc31bfa0fe5698db8u,0x486e494fcff30a62u},
    {0xf3e2f893dec3f126u,0x5a89dba3c3efccfau},{0x986ddb5c6b3a76b7u,0xf89629465a75e01cu},
    {0xbe89523386091465u,0xf6bbb397f1135823u},{0xee2ba6c0678b597fu,0x746aa07ded582e2cu},
    {0x94db483840b717efu,0xa8c2a44eb4571cdcu},{0xba121a4650e4ddebu,0x92f34d62616ce413u},
    {0xe896a0d7e51e1566u,0x77b020baf9c81d17u},{0x915e2486ef32cd60u,0x0ace1474dc1d122eu},
    {0xb5b5ada8aaff80b8u,0x0d819992132456bau},{0xe3231912d5bf60e6u,0x10e1fff697ed6c69u},
    {0x8df5efabc5979c8fu,0xca8d3ffa1ef463c1u},{0xb1736b96b6fd83b3u,0xbd308ff8a6b17cb2u},
    {0xddd0467c64bce4a0u,0xac7cb3f6d05ddbdeu},{0x8aa22c0dbef60ee4u,0x6bcdf07a423aa96bu},
    {0xad4ab7112eb3929du,0x86c16c98d2c953c6u},{0xd89d64d57a607744u,0xe871c7bf077ba8b7u},
    {0x87625f056c7c4a8bu,0x11471cd764ad4972u},{0xa93af6c6c79b5d2du,0xd598e40d3dd89bcfu},
    {0xd389b47879823479u,0x4aff1d108d4ec2c3u},{0x843610cb4bf160cbu,0xcedf722a585139bau},
    {0xa54394fe1eedb8feu,0xc2974eb4ee658828u},{0xce947a3da6a9273eu,0x733d226229feea32u},
    {0x811ccc668829b887u,0x0806357d5a3f525fu},{0xa163ff802a3426a8u,0xca07c2dcb0cf26f7u},
    {0xc9bcff6034c13052u,0xfc89b393dd02f0b5u},{0xfc2c3f3841f17c67u,0xbbac2078d443ace2u},
    {0x9d9ba7832936edc0u,0xd54b944b84aa4c0du},{0xc5029163f384a931u,0x0a9e795e65d4df11u},
    {0xf64335bcf065d37du,0x4d4617b5ff4a16d5u},{0x99ea0196163fa42eu,0x504bced1bf8e4e45u},
    {0xc06481fb9bcf8d39u,0xe45ec2862f71e1d6u},{0xf07da27a82c37088u,0x5d767327bb4e5a4cu},
    {0x964e858c91ba2655u,0x3a6a07f8d510f86fu},{0xbbe226efb628afeau,0x890489f70a55368bu},
    {0xeadab0aba3b2dbe5u,0x2b45ac74ccea842eu},{0x92c8ae6b464fc96fu,0x3b0b8bc90012929du},
    {0xb77ada0617e3bbcbu,0x09ce6ebb40173744u},{0xe55990879ddcaabdu,0xcc420a6a101d0515u},
    {0x8f57fa54c2a9eab6u,0x9fa946824a12232du},{0xb32df8e9f3546564u,0x47939822dc96abf9u},
    {0xdff9772470297ebdu,0x59787e2b93bc56f7u},{0x8bfbea76c619ef36u,0x57eb4edb3c55b65au},
    {0xaefae51477a06b03u,0xede622920b6b23f1u},{0xdab99e59958885c4u,0xe95fab368e45ecedu},
    {0x88b402f7fd75539bu,0x11dbcb0218ebb414u},{0xaae103b5fcd2a881u,0xd652bdc29f26a119u},
    {0xd59944a37c0752a2u,0x4be76d3346f0495fu},{0x857fcae62d8493a5u,0x6f70a4400c562ddbu},
    {0xa6dfbd9fb8e5b88eu,0xcb4ccd500f6bb952u},{0xd097ad07a71f26b2u,0x7e2000a41346a7a7u},
    {0x825ecc24c873782fu,0x8ed400668c0c28c8u},{0xa2f67f2dfa90563bu,0x728900802f0f32fau},
    {0xcbb41ef979346bcau,0x4f2b40a03ad2ffb9u},{0xfea126b7d78186bcu,0xe2f610c84987bfa8u},
    {0x9f24b832e6b0f436u,0x0dd9ca7d2df4d7c9u},{0xc6ede63fa05d3143u,0x91503d1c79720dbbu},
    {0xf8a95fcf88747d94u,0x75a44c6397ce912au},{0x9b69dbe1b548ce7cu,0xc986afbe3ee11abau},
    {0xc24452da229b021bu,0xfbe85badce996168u},{0xf2d56790ab41c2a2u,0xfae27299423fb9c3u},
    {0x97c560ba6b0919a5u,0xdccd879fc967d41au},{0xbdb6b8e905cb600fu,0x5400e987bbc1c920u},
    {0xed246723473e3813u,0x290123e9aab23b68u},{0x9436c0760c86e30bu,0xf9a0b6720aaf6521u},
    {0xb94470938fa89bceu,0xf808e40e8d5b3e69u},{0xe7958cb87392c2c2u,0xb60b1d1230b20e04u},
    {0x90bd77f3483bb9b9u,0xb1c6f22b5e6f48c2u},{0xb4ecd5f01a4aa828u,0x1e38aeb6360b1af3u},
    {0xe2280b6c20dd5232u,0x25c6da63c38de1b0u},{0x8d590723948a535fu,0x579c487e5a38ad0eu},
    {0xb0af48ec79ace837u,0x2d835a9df0c6d851u},{0xdcdb1b2798182244u,0xf8e431456cf88e65u},
    {0x8a08f0f8bf0f156bu,0x1b8e9ecb641b58ffu},{0xac8b2d36eed2dac5u,0xe272467e3d222f3fu},
    {0xd7adf884aa879177u,0x5b0ed81dcc6abb0fu},{0x86ccbb52ea94baeau,0x98e947129fc2b4e9u},
    {0xa87fea27a539e9a5u,0x3f2398d747b36224u},{0xd29fe4b18e88640eu,0x8eec7f0d19a03aadu},
    {0x83a3eeeef9153e89u,0x1953cf68300424acu},{0xa48ceaaab75a8e2bu,0x5fa8c3423c052dd7u},
    {0xcdb02555653131b6u,0x3792f412cb06794du},{0x808e17555f3ebf11u,0xe2bbd88bbee40bd0u},
    {0xa0b19d2ab70e6ed6u,0x5b6aceaeae9d0ec4u},{0xc8de047564d20a8bu,0xf245825a5a445275u},
    {0xfb158592be068d2eu,0xeed6e2f0f0d56712u},{0x9ced737bb6c4183du,0x55464dd69685606bu},
    {0xc428d05aa4751e4cu,0xaa97e14c3c26b886u},{0xf53304714d9265dfu,0xd53dd99f4b3066a8u},
    {0x993fe2c6d07b7fabu,0xe546a8038efe4029u},{0xbf8fdb78849a5f96u,0xde98520472bdd033u},
    {0xef73d256a5c0f77cu,0x963e66858f6d4440u},{0x95a8637627989aadu,0xdde7001379a44aa8u},
    {0xbb127c53b17ec159u,0x5560c018580d5d52u},{0xe9d71b689dde71afu,0xaab8f01e6e10b4a6u},
    {0x9226712162ab070du,0xcab3961304ca70e8u},{0xb6b00d69bb55c8d1u,0x3d607b97c5fd0d22u},
    {0xe45c10c42a2b3b05u,0x8cb89a7db77c506au},{0x8eb98a7a9a5b04e3u,0x77f3608e92adb242u},
    {0xb267ed1940f1c61cu,0x55f038b237591ed3u},{0xdf01e85f912e37a3u,0x6b6c46dec52f6688u},
    {0x8b61313bbabce2c6u,0x2323ac4b3b3da015u},{0xae397d8aa96c1b77u,0xabec975e0a0d081au},
    {0xd9c7dced53c72255u,0x96e7bd358c904a21u},{0x881cea14545c7575u,0x7e50d64177da2e54u},
    {0xaa242499697392d2u,0xdde50bd1d5d0b9e9u},{0xd4ad2dbfc3d07787u,0x955e4ec64b44e864u},
    {0x84ec3c97da624ab4u,0xbd5af13bef0b113eu},{0xa6274bbdd0fadd61u,0xecb1ad8aeacdd58eu},
    {0xcfb11ead453994bau,0x67de18eda5814af2u},{0x81ceb32c4b43fcf4u,0x80eacf948770ced7u},
    {0xa2425ff75e14fc31u,0xa1258379a94d028du},{0xcad2f7f5359a3b3eu,0x096ee45813a04330u},
    {0xfd87b5f28300ca0du,0x8bca9d6e188853fcu},{0x9e74d1b791e07e48u,0x775ea264cf55347du},
    {0xc612062576589ddau,0x95364afe032a819du},{0xf79687aed3eec551u,0x3a83ddbd83f52204u},
    {0x9abe14cd44753b52u,0xc4926a9672793542u},{0xc16d9a0095928a27u,0x75b7053c0f178293u},
    {0xf1c90080baf72cb1u,0x5324c68b12dd6338u},{0x971da05074da7beeu,0xd3f6fc16ebca5e03u},
    {0xbce5086492111aeau,0x88f4bb1ca6bcf584u},{0xec1e4a7db69561a5u,0x2b31e9e3d06c32e5u},
    {0x9392ee8e921d5d07u,0x3aff322e62439fcfu},{0xb877aa3236a4b449u,0x09befeb9fad487c2u},
    {0xe69594bec44de15bu,0x4c2ebe687989a9b3u},{0x901d7cf73ab0acd9u,0x0f9d37014bf60a10u},
    {0xb424dc35095cd80fu,0x538484c19ef38c94u},{0xe12e13424bb40e13u,0x2865a5f206b06fb9u},
    {0x8cbccc096f5088cbu,0xf93f87b7442e45d3u},{0xafebff0bcb24aafeu,0xf78f69a51539d748u},
    {0xdbe6fecebdedd5beu,0xb573440e5a884d1bu},{0x89705f4136b4a597u,0x31680a88f8953030u},
    {0xabcc77118461cefcu,0xfdc20d2b36ba7c3du},{0xd6bf94d5e57a42bcu,0x3d32907604691b4cu},
    {0x8637bd05af6c69b5u,0xa63f9a49c2c1b10fu},{0xa7c5ac471b478423u,0x0fcf80dc33721d53u},
    {0xd1b71758e219652bu,0xd3c36113404ea4a8u},{0x83126e978d4fdf3bu,0x645a1cac083126e9u},
    {0xa3d70a3d70a3d70au,0x3d70a3d70a3d70a3u},{0xccccccccccccccccu,0xccccccccccccccccu},
    {0x8000000000000000u,0x0000000000000000u},{0xa000000000000000u,0x0000000000000000u},
    {0xc800000000000000u,0x0000000000000000u},{0xfa00000000000000u,0x0000000000000000u},
    {0x9c40000000000000u,0x0000000000000000u},{0xc350000000000000u,0x0000000000000000u},
    {0xf424000000000000u,0x0000000000000000u},{0x9896800000000000u,0x0000000000000000u},
    {0xbebc200000000000u,0x0000000000000000u},{0xee6b280000000000u,0x0000000000000000u},
    {0x9502f90000000000u,0x0000000000000000u},{0xba43b74000000000u,0x0000000000000000u},
    {0xe8d4a51000000000u,0x0000000000000000u},{0x9184e72a00000000u,0x0000000000000000u},
    {0xb5e620f480000000u,0x0000000000000000u},{0xe35fa931a0000000u,0x0000000000000000u},
    {0x8e1bc9bf04000000u,0x0000000000000000u},{0xb1a2bc2ec5000000u,0x0000000000000000u},
    {0xde0b6b3a76400000u,0x0000000000000000u},{0x8ac7230489e80000u,0x0000000000000000u},
    {0xad78ebc5ac620000u,0x0000000000000000u},{0xd8d726b7177a8000u,0x0000000000000000u},
    {0x878678326eac9000u,0x0000000000000000u},{0xa968163f0a57b400u,0x0000000000000000u},
    {0xd3c21bcecceda100u,0x0000000000000000u},{0x84595161401484a0u,0x0000000000000000u},
    {0xa56fa5b99019a5c8u,0x0000000000000000u},{0xcecb8f27f4200f3au,0x0000000000000000u},
    {0x813f3978f8940984u,0x4000000000000000u},{0xa18f07d736b90be5u,0x5000000000000000u},
    {0xc9f2c9cd04674edeu,0xa400000000000000u},{0xfc6f7c4045812296u,0x4d00000000000000u},
    {0x9dc5ada82b70b59du,0xf020000000000000u},{0xc5371912364ce305u,0x6c28000000000000u},
    {0xf684df56c3e01bc6u,0xc732000000000000u},{0x9a130b963a6c115cu,0x3c7f400000000000u},
    {0xc097ce7bc90715b3u,0x4b9f100000000000u},{0xf0bdc21abb48db20u,0x1e86d40000000000u},
    {0x96769950b50d88f4u,0x1314448000000000u},{0xbc143fa4e250eb31u,0x17d955a000000000u},
    {0xeb194f8e1ae525fdu,0x5dcfab0800000000u},{0x92efd1b8d0cf37beu,0x5aa1cae500000000u},
    {0xb7abc627050305adu,0xf14a3d9e40000000u},{0xe596b7b0c643c719u,0x6d9ccd05d0000000u},
    {0x8f7e32ce7bea5c6fu,0xe4820023a2000000u},{0xb35dbf821ae4f38bu,0xdda2802c8a800000u},
    {0xe0352f62a19e306eu,0xd50b2037ad200000u},{0x8c213d9da502de45u,0x4526f422cc340000u},
    {0xaf298d050e4395d6u,0x9670b12b7f410000u},{0xdaf3f04651d47b4cu,0x3c0cdd765f114000u},
    {0x88d8762bf324cd0fu,0xa5880a69fb6ac800u},{0xab0e93b6efee0053u,0x8eea0d047a457a00u},
    {0xd5d238a4abe98068u,0x72a4904598d6d880u},{0x85a36366eb71f041u,0x47a6da2b7f864750u},
    {0xa70c3c40a64e6c51u,0x999090b65f67d924u},{0xd0cf4b50cfe20765u,0xfff4b4e3f741cf6du},
    {0x82818f1281ed449fu,0xbff8f10e7a8921a4u},{0xa321f2d7226895c7u,0xaff72d52192b6a0du},
    {0xcbea6f8ceb02bb39u,0x9bf4f8a69f764490u},{0xfee50b7025c36a08u,0x02f236d04753d5b4u},
    {0x9f4f2726179a2245u,0x01d762422c946590u},{0xc722f0ef9d80aad6u,0x424d3ad2b7b97ef5u},
    {0xf8ebad2b84e0d58bu,0xd2e0898765a7deb2u},{0x9b934c3b330c8577u,0x63cc55f49f88eb2fu},
    {0xc2781f49ffcfa6d5u,0x3cbf6b71c76b25fbu},{0xf316271c7fc3908au,0x8bef464e3945ef7au},
    {0x97edd871cfda3a56u,0x97758bf0e3cbb5acu},{0xbde94e8e43d0c8ecu,0x3d52eeed1cbea317u},
    {0xed63a231d4c4fb27u,0x4ca7aaa863ee4bddu},{0x945e455f24fb1cf8u,0x8fe8caa93e74ef6au},
    {0xb975d6b6ee39e436u,0xb3e2fd538e122b44u},{0xe7d34c64a9c85d44u,0x60dbbca87196b616u},
    {0x90e40fbeea1d3a4au,0xbc8955e946fe31cdu},{0xb51d13aea4a488ddu,0x6babab6398bdbe41u},
    {0xe264589a4dcdab14u,0xc696963c7eed2dd1u},{0x8d7eb76070a08aecu,0xfc1e1de5cf543ca2u},
    {0xb0de65388cc8ada8u,0x3b25a55f43294bcbu},{0xdd15fe86affad912u,0x49ef0eb713f39ebeu},
    {0x8a2dbf142dfcc7abu,0x6e3569326c784337u},{0xacb92ed9397bf996u,0x49c2c37f07965404u},
    {0xd7e77a8f87daf7fbu,0xdc33745ec97be906u},{0x86f0ac99b4e8dafdu,0x69a028bb3ded71a3u},
    {0xa8acd7c0222311bcu,0xc40832ea0d68ce0cu},{0xd2d80db02aabd62bu,0xf50a3fa490c30190u},
    {0x83c7088e1aab65dbu,0x792667c6da79e0fau},{0xa4b8cab1a1563f52u,0x577001b891185938u},
    {0xcde6fd5e09abcf26u,0xed4c0226b55e6f86u},{0x80b05e5ac60b6178u,0x544f8158315b05b4u},
    {0xa0dc75f1778e39d6u,0x696361ae3db1c721u},{0xc913936dd571c84cu,0x03bc3a19cd1e38e9u},
    {0xfb5878494ace3a5fu,0x04ab48a04065c723u},{0x9d174b2dcec0e47bu,0x62eb0d64283f9c76u},
    {0xc45d1df942711d9au,0x3ba5d0bd324f8394u},{0xf5746577930d6500u,0xca8f44ec7ee36479u},
    {0x9968bf6abbe85f20u,0x7e998b13cf4e1ecbu},{0xbfc2ef456ae276e8u,0x9e3fedd8c321a67eu},
    {0xefb3ab16c59b14a2u,0xc5cfe94ef3ea101eu},{0x95d04aee3b80ece5u,0xbba1f1d158724a12u},
    {0xbb445da9ca61281fu,0x2a8a6e45ae8edc97u},{0xea1575143cf97226u,0xf52d09d71a3293bdu},
    {0x924d692ca61be758u,0x593c2626705f9c56u},{0xb6e0c377cfa2e12eu,0x6f8b2fb00c77836cu},
    {0xe498f455c38b997au,0x0b6dfb9c0f956447u},{0x8edf98b59a373fecu,0x4724bd4189bd5eacu},
    {0xb2977ee300c50fe7u,0x58edec91ec2cb657u},{0xdf3d5e9bc0f653e1u,0x2f2967b66737e3edu},
    {0x8b865b215899f46cu,0xbd79e0d20082ee74u},{0xae67f1e9aec07187u,0xecd8590680a3aa11u},
    {0xda01ee641a708de9u,0xe80e6f4820cc9495u},{0x884134fe908658b2u,0x3109058d147fdcddu},
    {0xaa51823e34a7eedeu,0xbd4b46f0599fd415u},{0xd4e5e2cdc1d1ea96u,0x6c9e18ac7007c91au},
    {0x850fadc09923329eu,0x03e2cf6bc604ddb0u},{0xa6539930bf6bff45u,0x84db8346b786151cu},
    {0xcfe87f7cef46ff16u,0xe612641865679a63u},{0x81f14fae158c5f6eu,0x4fcb7e8f3f60c07eu},
    {0xa26da3999aef7749u,0xe3be5e330f38f09du},{0xcb090c8001ab551cu,0x5cadf5bfd3072cc5u},
    {0xfdcb4fa002162a63u,0x73d9732fc7c8f7f6u},{0x9e9f11c4014dda7eu,0x2867e7fddcdd9afau},
    {0xc646d63501a1511du,0xb281e1fd541501b8u},{0xf7d88bc24209a565u,0x1f225a7ca91a4226u},
    {0x9ae757596946075fu,0x3375788de9b06958u},{0xc1a12d2fc3978937u,0x0052d6b1641c83aeu},
    {0xf209787bb47d6b84u,0xc0678c5dbd23a49au},{0x9745eb4d50ce6332u,0xf840b7ba963646e0u},
    {0xbd176620a501fbffu,0xb650e5a93bc3d898u},{0xec5d3fa8ce427affu,0xa3e51f138ab4cebeu},
    {0x93ba47c980e98cdfu,0xc66f336c36b10137u},{0xb8a8d9bbe123f017u,0xb80b0047445d4184u},
    {0xe6d3102ad96cec1du,0xa60dc059157491e5u},{0x9043ea1ac7e41392u,0x87c89837ad68db2fu},
    {0xb454e4a179dd1877u,0x29babe4598c311fbu},{0xe16a1dc9d8545e94u,0xf4296dd6fef3d67au},
    {0x8ce2529e2734bb1du,0x1899e4a65f58660cu},{0xb01ae745b101e9e4u,0x5ec05dcff72e7f8fu},
    {0xdc21a1171d42645du,0x76707543f4fa1f73u},{0x899504ae72497ebau,0x6a06494a791c53a8u},
    {0xabfa45da0edbde69u,0x0487db9d17636892u},{0xd6f8d7509292d603u,0x45a9d2845d3c42b6u},
    {0x865b86925b9bc5c2u,0x0b8a2392ba45a9b2u},{0xa7f26836f282b732u,0x8e6cac7768d7141eu},
    {0xd1ef0244af2364ffu,0x3207d795430cd926u},{0x8335616aed761f1fu,0x7f44e6bd49e807b8u},
    {0xa402b9c5a8d3a6e7u,0x5f16206c9c6209a6u},{0xcd036837130890a1u,0x36dba887c37a8c0fu},
    {0x802221226be55a64u,0xc2494954da2c9789u},{0xa02aa96b06deb0fdu,0xf2db9baa10b7bd6cu},
    {0xc83553c5c8965d3du,0x6f92829494e5acc7u},{0xfa42a8b73abbf48cu,0xcb772339ba1f17f9u},
    {0x9c69a97284b578d7u,0xff2a760414536efbu},{0xc38413cf25e2d70du,0xfef5138519684abau},
    {0xf46518c2ef5b8cd1u,0x7eb258665fc25d69u},{0x98bf2f79d5993802u,0xef2f773ffbd97a61u},
    {0xbeeefb584aff8603u,0xaafb550ffacfd8fau},{0xeeaaba2e5dbf6784u,0x95ba2a53f983cf38u},
    {0x952ab45cfa97a0b2u,0xdd945a747bf26183u},{0xba756174393d88dfu,0x94f971119aeef9e4u},
    {0xe912b9d1478ceb17u,0x7a37cd5601aab85du},{0x91abb422ccb812eeu,0xac62e055c10ab33au},
    {0xb616a12b7fe617aau,0x577b986b314d6009u},{0xe39c49765fdf9d94u,0xed5a7e85fda0b80bu},
    {0x8e41ade9fbebc27du,0x14588f13be847307u},{0xb1d219647ae6b31cu,0x596eb2d8ae258fc8u},
    {0xde469fbd99a05fe3u,0x6fca5f8ed9aef3bbu},{0x8aec23d680043beeu,0x25de7bb9480d5854u},
    {0xada72ccc20054ae9u,0xaf561aa79a10ae6au},{0xd910f7ff28069da4u,0x1b2ba1518094da04u},
    {0x87aa9aff79042286u,0x90fb44d2f05d0842u},{0xa99541bf57452b28u,0x353a1607ac744a53u},
    {0xd3fa922f2d1675f2u,0x42889b8997915ce8u},{0x847c9b5d7c2e09b7u,0x69956135febada11u},
    {0xa59bc234db398c25u,0x43fab9837e699095u},{0xcf02b2c21207ef2eu,0x94f967e45e03f4bbu},
    {0x8161afb94b44f57du,0x1d1be0eebac278f5u},{0xa1ba1ba79e1632dcu,0x6462d92a69731732u},
    {0xca28a291859bbf93u,0x7d7b8f7503cfdcfeu},{0xfcb2cb35e702af78u,0x5cda735244c3d43eu},
    {0x9defbf01b061adabu,0x3a0888136afa64a7u},{0xc56baec21c7a1916u,0x088aaa1845b8fdd0u},
    {0xf6c69a72a3989f5bu,0x8aad549e57273d45u},{0x9a3c2087a63f6399u,0x36ac54e2f678864bu},
    {0xc0cb28a98fcf3c7fu,0x84576a1bb416a7ddu},{0xf0fdf2d3f3c30b9fu,0x656d44a2a11c51d5u},
    {0x969eb7c47859e743u,0x9f644ae5a4b1b325u},{0xbc4665b596706114u,0x873d5d9f0dde1feeu},
    {0xeb57ff22fc0c7959u,0xa90cb506d155a7eau},{0x9316ff75dd87cbd8u,0x09a7f12442d588f2u},
    {0xb7dcbf5354e9beceu,0x0c11ed6d538aeb2fu},{0xe5d3ef282a242e81u,0x8f1668c8a86da5fau},
    {0x8fa475791a569d10u,0xf96e017d694487bcu},{0xb38d92d760ec4455u,0x37c981dcc395a9acu},
    {0xe070f78d3927556au,0x85bbe253f47b1417u},{0x8c469ab843b89562u,0x93956d7478ccec8eu},
    {0xaf58416654a6babbu,0x387ac8d1970027b2u},{0xdb2e51bfe9d0696au,0x06997b05fcc0319eu},
    {0x88fcf317f22241e2u,0x441fece3bdf81f03u},{0xab3c2fddeeaad25au,0xd527e81cad7626c3u},
    {0xd60b3bd56a5586f1u,0x8a71e223d8d3b074u},{0x85c7056562757456u,0xf6872d5667844e49u},
    {0xa738c6bebb12d16cu,0xb428f8ac016561dbu},{0xd106f86e69d785c7u,0xe13336d701beba52u},
    {0x82a45b450226b39cu,0xecc0024661173473u},{0xa34d721642b06084u,0x27f002d7f95d0190u},
    {0xcc20ce9bd35c78a5u,0x31ec038df7b441f4u},{0xff290242c83396ceu,0x7e67047175a15271u},
    {0x9f79a169bd203e41u,0x0f0062c6e984d386u},{0xc75809c42c684dd1u,0x52c07b78a3e60868u},
    {0xf92e0c3537826145u,0xa7709a56ccdf8a82u},{0x9bbcc7a142b17ccbu,0x88a66076400bb691u},
    {0xc2abf989935ddbfeu,0x6acff893d00ea435u},{0xf356f7ebf83552feu,0x0583f6b8c4124d43u},
    {0x98165af37b2153deu,0xc3727a337a8b704au},{0xbe1bf1b059e9a8d6u,0x744f18c0592e4c5cu},
    {0xeda2ee1c7064130cu,0x1162def06f79df73u},{0x9485d4d1c63e8be7u,0x8addcb5645ac2ba8u},
    {0xb9a74a0637ce2ee1u,0x6d953e2bd7173692u},{0xe8111c87c5c1ba99u,0xc8fa8db6ccdd0437u},
    {0x910ab1d4db9914a0u,0x1d9c9892400a22a2u},{0xb54d5e4a127f59c8u,0x2503beb6d00cab4bu},
    {0xe2a0b5dc971f303au,0x2e44ae64840fd61du},{0x8da471a9de737e24u,0x5ceaecfed289e5d2u},
    {0xb10d8e1456105dadu,0x7425a83e872c5f47u},{0xdd50f1996b947518u,0xd12f124e28f77719u},
    {0x8a5296ffe33cc92fu,0x82bd6b70d99aaa6fu},{0xace73cbfdc0bfb7bu,0x636cc64d1001550bu},
    {0xd8210befd30efa5au,0x3c47f7e05401aa4eu},{0x8714a775e3e95c78u,0x65acfaec34810a71u},
    {0xa8d9d1535ce3b396u,0x7f1839a741a14d0du},{0xd31045a8341ca07cu,0x1ede48111209a050u},
    {0x83ea2b892091e44du,0x934aed0aab460432u},{0xa4e4b66b68b65d60u,0xf81da84d5617853fu},
    {0xce1de40642e3f4b9u,0x36251260ab9d668eu},{0x80d2ae83e9ce78f3u,0xc1d72b7c6b426019u},
    {0xa1075a24e4421730u,0xb24cf65b8612f81fu},{0xc94930ae1d529cfcu,0xdee033f26797b627u},
    {0xfb9b7cd9a4a7443cu,0x169840ef017da3b1u},{0x9d412e0806e88aa5u,0x8e1f289560ee864eu},
    {0xc491798a08a2ad4eu,0xf1a6f2bab92a27e2u},{0xf5b5d7ec8acb58a2u,0xae10af696774b1dbu},
    {0x9991a6f3d6bf1765u,0xacca6da1e0a8ef29u},{0xbff610b0cc6edd3fu,0x17fd090a58d32af3u},
    {0xeff394dcff8a948eu,0xddfc4b4cef07f5b0u},{0x95f83d0a1fb69cd9u,0x4abdaf101564f98eu},
    {0xbb764c4ca7a4440fu,0x9d6d1ad41abe37f1u},{0xea53df5fd18d5513u,0x84c86189216dc5edu},
    {0x92746b9be2f8552cu,0x32fd3cf5b4e49bb4u},{0xb7118682dbb66a77u,0x3fbc8c33221dc2a1u},
    {0xe4d5e82392a40515u,0x0fabaf3feaa5334au},{0x8f05b1163ba6832du,0x29cb4d87f2a7400eu},
    {0xb2c71d5bca9023f8u,0x743e20e9ef511012u},{0xdf78e4b2bd342cf6u,0x914da9246b255416u},
    {0x8bab8eefb6409c1au,0x1ad089b6c2f7548eu},{0xae9672aba3d0c320u,0xa184ac2473b529b1u},
    {0xda3c0f568cc4f3e8u,0xc9e5d72d90a2741eu},{0x8865899617fb1871u,0x7e2fa67c7a658892u},
    {0xaa7eebfb9df9de8du,0xddbb901b98feeab7u},{0xd51ea6fa85785631u,0x552a74227f3ea565u},
    {0x8533285c936b35deu,0xd53a88958f87275fu},{0xa67ff273b8460356u,0x8a892abaf368f137u},
    {0xd01fef10a657842cu,0x2d2b7569b0432d85u},{0x8213f56a67f6b29bu,0x9c3b29620e29fc73u},
    {0xa298f2c501f45f42u,0x8349f3ba91b47b8fu},{0xcb3f2f7642717713u,0x241c70a936219a73u},
    {0xfe0efb53d30dd4d7u,0xed238cd383aa0110u},{0x9ec95d1463e8a506u,0xf4363804324a40aau},
    {0xc67bb4597ce2ce48u,0xb143c6053edcd0d5u},{0xf81aa16fdc1b81dau,0xdd94b7868e94050au},
    {0x9b10a4e5e9913128u,0xca7cf2b4191c8326u},{0xc1d4ce1f63f57d72u,0xfd1c2f611f63a3f0u},
    {0xf24a01a73cf2dccfu,0xbc633b39673c8cecu},{0x976e41088617ca01u,0xd5be0503e085d813u},
    {0xbd49d14aa79dbc82u,0x4b2d8644d8a74e18u},{0xec9c459d51852ba2u,0xddf8e7d60ed1219eu},
    {0x93e1ab8252f33b45u,0xcabb90e5c942b503u},{0xb8da1662e7b00a17u,0x3d6a751f3b936243u},
    {0xe7109bfba19c0c9du,0x0cc512670a783ad4u},{0x906a617d450187e2u,0x27fb2b80668b24c5u},
    {0xb484f9dc9641e9dau,0xb1f9f660802dedf6u},{0xe1a63853bbd26451u,0x5e7873f8a0396973u},
    {0x8d07e33455637eb2u,0xdb0b487b6423e1e8u},{0xb049dc016abc5e5fu,0x91ce1a9a3d2cda62u},
    {0xdc5c5301c56b75f7u,0x7641a140cc7810fbu},{0x89b9b3e11b6329bau,0xa9e904c87fcb0a9du},
    {0xac2820d9623bf429u,0x546345fa9fbdcd44u},{0xd732290fbacaf133u,0xa97c177947ad4095u},
    {0x867f59a9d4bed6c0u,0x49ed8eabcccc485du},{0xa81f301449ee8c70u,0x5c68f256bfff5a74u},
    {0xd226fc195c6a2f8cu,0x73832eec6fff3111u},{0x83585d8fd9c25db7u,0xc831fd53c5ff7eabu},
    {0xa42e74f3d032f525u,0xba3e7ca8b77f5e55u},{0xcd3a1230c43fb26fu,0x28ce1bd2e55f35ebu},
    {0x80444b5e7aa7cf85u,0x7980d163cf5b81b3u},{0xa0555e361951c366u,0xd7e105bcc332621fu},
    {0xc86ab5c39fa63440u,0x8dd9472bf3fefaa7u},{0xfa856334878fc150u,0xb14f98f6f0feb951u},
    {0x9c935e00d4b9d8d2u,0x6ed1bf9a569f33d3u},{0xc3b8358109e84f07u,0x0a862f80ec4700c8u},
    {0xf4a642e14c6262c8u,0xcd27bb612758c0fau},{0x98e7e9cccfbd7dbdu,0x8038d51cb897789cu},
    {0xbf21e44003acdd2cu,0xe0470a63e6bd56c3u},{0xeeea5d5004981478u,0x1858ccfce06cac74u},
    {0x95527a5202df0ccbu,0x0f37801e0c43ebc8u},{0xbaa718e68396cffdu,0xd30560258f54e6bau},
    {0xe950df20247c83fdu,0x47c6b82ef32a2069u},{0x91d28b7416cdd27eu,0x4cdc331d57fa5441u},
    {0xb6472e511c81471du,0xe0133fe4adf8e952u},{0xe3d8f9e563a198e5u,0x58180fddd97723a6u},
    {0x8e679c2f5e44ff8fu,0x570f09eaa7ea7648u},{0xb201833b35d63f73u,0x2cd2cc6551e513dau},
    {0xde81e40a034bcf4fu,0xf8077f7ea65e58d1u},{0x8b112e86420f6191u,0xfb04afaf27faf782u},
    {0xadd57a27d29339f6u,0x79c5db9af1f9b563u},{0xd94ad8b1c7380874u,0x18375281ae7822bcu},
    {0x87cec76f1c830548u,0x8f2293910d0b15b5u},{0xa9c2794ae3a3c69au,0xb2eb3875504ddb22u},
    {0xd433179d9c8cb841u,0x5fa60692a46151ebu},{0x849feec281d7f328u,0xdbc7c41ba6bcd333u},
    {0xa5c7ea73224deff3u,0x12b9b522906c0800u},{0xcf39e50feae16befu,0xd768226b34870a00u},
    {0x81842f29f2cce375u,0xe6a1158300d46640u},{0xa1e53af46f801c53u,0x60495ae3c1097fd0u},
    {0xca5e89b18b602368u,0x385bb19cb14bdfc4u},{0xfcf62c1dee382c42u,0x46729e03dd9ed7b5u},
    {0x9e19db92b4e31ba9u,0x6c07a2c26a8346d1u},{0xc5a05277621be293u,0xc7098b7305241885u},
    {0xf70867153aa2db38u,0xb8cbee4fc66d1ea7u},{0x9a65406d44a5c903u,0x737f74f1dc043328u},
    {0xc0fe908895cf3b44u,0x505f522e53053ff2u},{0xf13e34aabb430a15u,0x647726b9e7c68fefu},
    {0x96c6e0eab509e64du,0x5eca783430dc19f5u},{0xbc789925624c5fe0u,0xb67d16413d132072u},
    {0xeb96bf6ebadf77d8u,0xe41c5bd18c57e88fu},{0x933e37a534cbaae7u,0x8e91b962f7b6f159u},
    {0xb80dc58e81fe95a1u,0x723627bbb5a4adb0u},{0xe61136f2227e3b09u,0xcec3b1aaa30dd91cu},
    {0x8fcac257558ee4e6u,0x213a4f0aa5e8a7b1u},{0xb3bd72ed2af29e1fu,0xa988e2cd4f62d19du},
    {0xe0accfa875af45a7u,0x93eb1b80a33b8605u},{0x8c6c01c9498d8b88u,0xbc72f130660533c3u},
    {0xaf87023b9bf0ee6au,0xeb8fad7c7f8680b4u},{0xdb68c2ca82ed2a05u,0xa67398db9f6820e1u},
    {0x892179be91d43a43u,0x88083f8943a1148cu},{0xab69d82e364948d4u,0x6a0a4f6b948959b0u},
    {0xd6444e39c3db9b09u,0x848ce34679abb01cu},{0x85eab0e41a6940e5u,0xf2d80e0c0c0b4e11u},
    {0xa7655d1d2103911fu,0x6f8e118f0f0e2195u},{0xd13eb46469447567u,0x4b7195f2d2d1a9fbu}
};

static const double mcp__pow10_exact[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* floor(e * log2(10)), exact for |e| <= 1000 */
static int mcp__log2_pow10(int e)
{
    long t = 217706L * e;
    return t >= 0 ? (int)(t >> 16) : -(int)((-t + 65535) >> 16);
}

/* Eisel-Lemire: m * 10^e10 as double bits, or 0 when it cannot decide (ambiguous halfway,
   subnormal or overflow); the caller then takes the slow path. m != 0. */
static int mcp__eisel_lemire(uint64_t m, int e10, uint64_t *bits)
{
    const uint64_t *p;
    uint64_t xhi, xlo, yhi, ylo, mant, mhi, mlo;
    int clz, msb;
    long e2;
    if (e10 < -348 || e10 > 347) return 0;
    p = mcp__pow10_128[e10 + 348];
    clz = mcp__clz64(m);
    m <<= clz;
    e2 = (long)mcp__log2_pow10(e10) + 64 + 1023 - clz;
    xlo = mcp__mul128(m, p[0], &xhi);
    if ((xhi & 0x1FF) == 0x1FF && xlo + m < m) {     /* low bits may matter: widen */
        ylo = mcp__mul128(m, p[1], &yhi);
        mhi = xhi; mlo = xlo + yhi;
        if (mlo < xlo) mhi++;
        if ((mhi & 0x1FF) == 0x1FF && mlo + 1 == 0 && ylo + m < m) return 0;
        xhi = mhi; xlo = mlo;
    }
    msb = (int)(xhi >> 63);
    mant = xhi >> (msb + 9);
    e2 -= 1 ^ msb;
    if (xlo == 0 && (xhi & 0x1FF) == 0 && (mant & 3) == 1) return 0;  /* exact halfway */
    mant += mant & 1;
    mant >>= 1;
    if (mant >> 53) { mant >>= 1; e2++; }
    if (e2 <= 0 || e2 >= 0x7FF) return 0;
    *bits = ((uint64_t)e2 << 52) | (mant & 0x000FFFFFFFFFFFFFu);
    return 1;
}

/* The slow path: a decimal 0.d1d2d3... x 10^dp, shifted by powers of two until the binary
   exponent is known, then rounded half-to-even with the sticky truncation bit. */
#define MCP__DEC_DIGITS 800
typedef struct mcp__decimal {
    int nd, dp, trunc;
    unsigned char d[MCP__DEC_DIGITS];
} mcp__decimal;

static void mcp__dec_trim(mcp__decimal *a)
{
    while (a->nd > 0 && a->d[a->nd - 1] == 0) a->nd--;
    if (a->nd == 0) a->dp = 0;
}

static void mcp__dec_lshift(mcp__decimal *a, int k)   /* multiply by 2^k, k <= 60 */
{
    unsigned char t[MCP__DEC_DIGITS + 20];
    int r, w = a->nd + 19, n_new, i;
    uint64_t n = 0, q;
    for (r = a->nd - 1; r >= 0; r--) {
        n += (uint64_t)a->d[r] << k;
        q = n / 10; t[--w] = (unsigned char)(n - q * 10); n = q;
    }
    while (n > 0) { q = n / 10; t[--w] = (unsigned char)(n - q * 10); n = q; }
    n_new = a->nd + 19 - w;
    a->dp += n_new - a->nd;
    for (i = MCP__DEC_DIGITS; i < n_new; i++)
        if (t[w + i]) a->trunc = 1;
    if (n_new > MCP__DEC_DIGITS) n_new = MCP__DEC_DIGITS;
    memcpy(a->d, t + w, (size_t)n_new);
    a->nd = n_new;
    mcp__dec_trim(a);
}

static void mcp__dec_rshift(mcp__decimal *a, int k)   /* divide by 2^k, k <= 60 */
{
    int r = 0, w = 0;
    uint64_t n = 0, mask = ((uint64_t)1 << k) - 1, dig;
    for (; (n >> k) == 0; r++) {
        if (r >= a->nd) {
            if (n == 0) { a->nd = 0; a->dp = 0; return; }
            while ((n >> k) == 0) { n *= 10; r++; }
            break;
        }
        n = n * 10 + a->d[r];
    }
    a->dp -= r - 1;
    for (; r < a->nd; r++) {
        dig = n >> k; n &= mask;
        a->d[w++] = (unsigned char)dig;
        n = n * 10 + a->d[r];
    }
    while (n > 0) {
        dig = n >> k; n &= mask;
        if (w < MCP__DEC_DIGITS) a->d[w++] = (unsigned char)dig;
        else if (dig > 0) a->trunc = 1;
        n *= 10;
    }
    a->nd = w;
    mcp__dec_trim(a);
}

static void mcp__dec_shift(mcp__decimal *a, int k)
{
    if (a->nd == 0) return;
    for (; k > 60; k -= 60) mcp__dec_lshift(a, 60);
    for (; k < -60; k += 60) mcp__dec_rshift(a, 60);
    if (k > 0) mcp__dec_lshift(a, k);
    else if (k < 0) mcp__dec_rshift(a, -k);
}

static uint64_t mcp__dec_round(const mcp__decimal *a)   /* to the nearest integer, half even */
{
    uint64_t n = 0;
    int i, up;
    if (a->dp > 20) return (uint64_t)-1;
    for (i = 0; i < a->dp && i < a->nd; i++) n = n * 10 + a->d[i];
    for (; i < a->dp; i++) n *= 10;
    if (a->dp < 0 || a->dp >= a->nd) up = 0;
    else if (a->d[a->dp] == 5 && a->dp + 1 == a->nd)
        up = a->trunc || (a->dp > 0 && (a->d[a->dp - 1] & 1));
    else up = a->d[a->dp] >= 5;
    return n + (uint64_t)up;
}

/* Exponents saturate here; far beyond any digit count a 4 GiB input can hold. */
#define MCP__EXP_CAP ((int64_t)1 << 50)

/* Exact conversion of a validated JSON number literal. Returns 0 when it overflows. */
static int mcp__slow_double(const char *s, const char *end, uint64_t *bits)
{
    static const int powtab[9] = {1, 3, 6, 9, 13, 16, 19, 23, 26};
    mcp__decimal a;
    int neg = 0, seen = 0, frac = 0, exp2 = 0, n;
    int64_t e = 0, esign = 1, dp = 0;   /* 64-bit: a 4 GiB literal has 4e9 digits */
    uint64_t mant;
    a.nd = 0; a.dp = 0; a.trunc = 0;
    if (*s == '-') { neg = 1; s++; }
    for (; s < end && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') { frac = 1; continue; }
        if (!seen && *s == '0') { if (frac) dp--; continue; }
        seen = 1;
        if (!frac) dp++;
        if (a.nd < MCP__DEC_DIGITS) a.d[a.nd++] = (unsigned char)(*s - '0');
        else if (*s != '0') a.trunc = 1;
    }
    if (s < end) {
        s++;
        if (*s == '-' || *s == '+') { esign = *s == '-' ? -1 : 1; s++; }
        for (; s < end; s++) if (e < MCP__EXP_CAP) e = e * 10 + (*s - '0');
    }
    while (a.nd > 0 && a.d[a.nd - 1] == 0) a.nd--;
    *bits = neg ? (uint64_t)1 << 63 : 0;
    if (a.nd == 0) return 1;
    e = dp + esign * e;
    if (e > 310) return 0;
    if (e < -330) return 1;
    a.dp = (int)e;
    while (a.dp > 0) {
        n = a.dp >= 9 ? 27 : powtab[a.dp];
        mcp__dec_shift(&a, -n); exp2 += n;
    }
    while (a.dp < 0 || (a.dp == 0 && a.d[0] < 5)) {
        n = -a.dp >= 9 ? 27 : powtab[-a.dp];
        mcp__dec_shift(&a, n); exp2 -= n;
    }
    exp2--;                                   /* now the value is in [1, 2) x 2^exp2 */
    if (exp2 < -1022) { n = -1022 - exp2; mcp__dec_shift(&a, -n); exp2 += n; }
    if (exp2 + 1023 >= 0x7FF) return 0;
    mcp__dec_shift(&a, 53);
    mant = mcp__dec_round(&a);
    if (mant == (uint64_t)2 << 52) { mant >>= 1; exp2++; if (exp2 + 1023 >= 0x7FF) return 0; }
    if (!(mant & ((uint64_t)1 << 52))) exp2 = -1023;   /* subnormal */
    *bits |= (mant & 0x000FFFFFFFFFFFFFu) | ((uint64_t)((exp2 + 1023) & 0x7FF) << 52);
    return 1;
}

/* ---- numbers: double to text (Grisu2) ----------------------------------------------------
   Digits that always read back to the same double and are almost always the shortest such;
   the cached powers are the same table as above, rounded to 64 bits. */

typedef struct mcp__fp { uint64_t f; int e; } mcp__fp;

static mcp__fp mcp__fp_mul(mcp__fp a, mcp__fp b)   /* rounded 64-bit product */
{
    mcp__fp r;
    uint64_t hi, lo = mcp__mul128(a.f, b.f, &hi);
    r.f = hi + (lo >> 63);
    r.e = a.e + b.e + 64;
    return r;
}

static mcp__fp mcp__cached_pow10(int e, int *k)   /* c = 10^-k with the product in range */
{
    double dk = (-61 - e) * 0.30102999566398114 + 347;
    int ik = (int)dk, index, e10;
    mcp__fp c;
    const uint64_t *p;
    if (dk - ik > 0.0) ik++;
    index = (ik >> 3) + 1;
    e10 = -348 + index * 8;
    *k = -e10;
    p = mcp__pow10_128[e10 + 348];
    c.f = p[0] + (p[1] >> 63);
    c.e = mcp__log2_pow10(e10) - 63;
    return c;
}

static const uint64_t mcp__pow10_u64[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u
};

static void mcp__grisu_round(char *buf, int len, uint64_t delta, uint64_t rest,
                             uint64_t ten_k, uint64_t wp_w)
{
    while (rest < wp_w && delta - rest >= ten_k &&
           (rest + ten_k < wp_w || wp_w - rest > rest + ten_k - wp_w)) {
        buf[len - 1]--;
        rest += ten_k;
    }
}

static int mcp__digits_gen(mcp__fp w, mcp__fp mp, uint64_t delta, char *buf, int *k)
{
    int shift = -mp.e, kappa = 0, len = 0;
    uint64_t one = (uint64_t)1 << shift, wp_w = mp.f - w.f, p2 = mp.f & (one - 1), tmp;
    uint32_t p1 = (uint32_t)(mp.f >> shift), d;
    uint32_t t;
    for (t = p1; t; t /= 10) kappa++;
    while (kappa > 0) {
        uint32_t div = (uint32_t)mcp__pow10_u64[kappa - 1];
        d = p1 / div; p1 %= div;
        if (d || len) buf[len++] = (char)('0' + d);
        kappa--;
        tmp = ((uint64_t)p1 << shift) + p2;
        if (tmp <= delta) {
            *k += kappa;
            mcp__grisu_round(buf, len, delta, tmp, mcp__pow10_u64[kappa] << shift, wp_w);
            return len;
        }
    }
    for (;;) {
        p2 *= 10; delta *= 10;
        d = (uint32_t)(p2 >> shift);
        if (d || len) buf[len++] = (char)('0' + d);
        p2 &= one - 1;
        kappa--;
        if (p2 < delta) {
            *k += kappa;
            mcp__grisu_round(buf, len, delta, p2, one,
                             -kappa < 20 ? wp_w * mcp__pow10_u64[-kappa] : 0);
            return len;
        }
    }
}

/* v finite and > 0: digits into buf (no dot), returns their count; value = digits x 10^k */
static int mcp__grisu2(double v, char *buf, int *k)
{
    uint64_t u = mcp__dbits(v), frac = u & 0x000FFFFFFFFFFFFFu;
    int be = (int)((u >> 52) & 0x7FF), s;
    mcp__fp w, mp, mm, c, W, Wp, Wm;
    if (be) { w.f = frac | ((uint64_t)1 << 52); w.e = be - 1075; }
    else { w.f = frac; w.e = -1074; }
    /* boundaries m+ and m-, normalised to the same exponent */
    mp.f = (w.f << 1) + 1; mp.e = w.e - 1;
    s = mcp__clz64(mp.f); mp.f <<= s; mp.e -= s;
    if (w.f == ((uint64_t)1 << 52)) { mm.f = (w.f << 2) - 1; mm.e = w.e - 2; }
    else { mm.f = (w.f << 1) - 1; mm.e = w.e - 1; }
    mm.f <<= mm.e - mp.e; mm.e = mp.e;
    s = mcp__clz64(w.f); w.f <<= s; w.e -= s;
    c = mcp__cached_pow10(mp.e, k);
    W = mcp__fp_mul(w, c);
    Wp = mcp__fp_mul(mp, c);
    Wm = mcp__fp_mul(mm, c);
    Wm.f++; Wp.f--;
    return mcp__digits_gen(W, Wp, Wp.f - Wm.f, buf, k);
}

/* Writes a finite double; always contains '.' or 'e' so it reads back as a double. buf holds
   at least 32 bytes. Returns the length. */
static int mcp__dtoa(double v, char *out)
{
    char dig[24];
    int n, k, kk, i, pos = 0, x;
    if (mcp__dbits(v) >> 63) { out[pos++] = '-'; v = -v; }
    if (v == 0) { memcpy(out + pos, "0.0", 3); return pos + 3; }
    n = mcp__grisu2(v, dig, &k);
    kk = n + k;                              /* v = 0.dig x 10^kk */
    if (kk > 0 && kk <= 21) {
        if (k >= 0) {                        /* 12300000.0 */
            memcpy(out + pos, dig, (size_t)n); pos += n;
            for (i = 0; i < k; i++) out[pos++] = '0';
            out[pos++] = '.'; out[pos++] = '0';
        } else {                             /* 123.45 */
            memcpy(out + pos, dig, (size_t)kk); pos += kk;
            out[pos++] = '.';
            memcpy(out + pos, dig + kk, (size_t)(n - kk)); pos += n - kk;
        }
    } else if (kk <= 0 && kk > -6) {         /* 0.00012345 */
        out[pos++] = '0'; out[pos++] = '.';
        for (i = 0; i < -kk; i++) out[pos++] = '0';
        memcpy(out + pos, dig, (size_t)n); pos += n;
    } else {                                 /* 1.2345e-7, 1e300 */
        out[pos++] = dig[0];
        if (n > 1) { out[pos++] = '.'; memcpy(out + pos, dig + 1, (size_t)(n - 1)); pos += n - 1; }
        out[pos++] = 'e';
        x = kk - 1;
        if (x < 0) { out[pos++] = '-'; x = -x; }
        if (x >= 100) out[pos++] = (char)('0' + x / 100);
        if (x >= 10) out[pos++] = (char)('0' + x / 10 % 10);
        out[pos++] = (char)('0' + x % 10);
    }
    return pos;
}

static int mcp__i64toa(int64_t v, char *out)   /* out holds at least 21 bytes */
{
    char tmp[20];
    int n = 0, pos = 0;
    uint64_t u = (uint64_t)v;
    if (v < 0) { out[pos++] = '-'; u = 0 - u; }
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    while (n) out[pos++] = tmp[--n];
    return pos;
}

/* ---- the parser -------------------------------------------------------------------------- */

typedef struct mcp__frame { size_t start; unsigned char is_obj; } mcp__frame;
#define MCP__FRAMES 32                   /* open containers the parser tracks without the heap */

typedef struct mcp__parser {
    const unsigned char *beg, *end;
    mcp_json_doc *doc;
    mcp_json *vs; size_t vn, vcap;      /* values of the open containers */
    mcp__frame *fs; size_t fn, fcap;    /* the open containers */
    mcp_json vs_inline[64];             /* small documents never touch the heap for these */
    mcp__frame fs_inline[MCP__FRAMES];
    size_t max_depth;
    void *ctx;
    mcp_status st;
    const unsigned char *err_at;
    char what[160];
    int check;                          /* only checking: plain strings and children not stored */
} mcp__parser;

static void mcp__perr(mcp__parser *ps, mcp_status st, const unsigned char *at, const char *fmt, ...)
    MCP__PRINTF(4, 5);
static void mcp__perr(mcp__parser *ps, mcp_status st, const unsigned char *at, const char *fmt, ...)
{
    va_list ap;
    ps->st = st; ps->err_at = at;
    va_start(ap, fmt);
    vsnprintf(ps->what, sizeof ps->what, fmt, ap);
    va_end(ap);
}

/* "expected X" plus what was found instead, in words */
static void mcp__perr_expect(mcp__parser *ps, const unsigned char *at, const char *expected)
{
    if (at >= ps->end) mcp__perr(ps, MCP_ERR_PARSE, at, "expected %s but the input ended", expected);
    else if (*at >= 0x21 && *at < 0x7F)
        mcp__perr(ps, MCP_ERR_PARSE, at, "expected %s, found '%c'", expected, *at);
    else mcp__perr(ps, MCP_ERR_PARSE, at, "expected %s, found byte 0x%02X", expected, *at);
}

/* Grows *p to hold `need` elements. While *p is still the caller's inline array `inl`,
   the first growth copies it to the heap. */
static int mcp__grow(void **p, size_t *cap, size_t elem, size_t need, void *inl, void *ctx)
{
    size_t ncap = *cap ? *cap : 16;
    void *np;
    while (ncap < need) ncap *= 2;
    if (ncap > ((size_t)-1) / elem) return 0;
    if (*p && *p == inl) {
        np = MCP_MALLOC(ncap * elem, ctx);
        if (np) memcpy(np, inl, *cap * elem);
    } else {
        np = MCP_REALLOC(*p, ncap * elem, ctx);
    }
    if (!np) return 0;
    *p = np; *cap = ncap;
    return 1;
}

#define MCP__WS(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')

static const unsigned char *mcp__skip_ws_run(mcp__parser *ps, const unsigned char *p)
{
    const unsigned char *end = ps->end;
    uint64_t x;
    while (p < end) {
        if (*p == ' ' && p + 8 <= end) {                     /* indentation: 8 spaces a step */
            memcpy(&x, p, 8);
            x ^= 0x2020202020202020u;
            if (x) { p += MCP__FIRST_BYTE(x); if (*p == ' ') p++; continue; }
            p += 8;
        } else if (MCP__WS(*p)) {
            if (*p == '\n' || *p == '\r') ps->doc->multiline = 1;
            p++;
        } else break;
    }
    return p;
}

static MCP__INLINE const unsigned char *mcp__skip_ws(mcp__parser *ps, const unsigned char *p)
{
    if (MCP__LIKELY(p < ps->end && *p > ' ')) return p;      /* compact text: no whitespace */
    return mcp__skip_ws_run(ps, p);
}

/* Length of the UTF-8 sequence at p (lead byte >= 0x80), or 0 if it is invalid. */
static MCP__INLINE int mcp__utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t left = (size_t)(end - p);
    if (c >= 0xC2 && c <= 0xDF) return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return left >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return left >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 &&
               (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* Nonzero if any of 8 bytes is '"', '\\', a control character or >= 0x80. */
static uint64_t mcp__str_special8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t x, q, b;
    memcpy(&x, p, 8);
    q = x ^ (ones * '"');
    b = x ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x) | x) & highs;
}

/* The string scanners' fast path: 64 bytes a step (AVX2: 128) with the compiler's portable vector types
   where the machine has vector registers (SSE2 on x86-64, NEON on ARM), 8 with SWAR words
   elsewhere; MCP_NO_VECTOR turns the vector path off (and MCP_NO_AVX2 the 32-byte vectors of
   x86-64 CPUs that have AVX2, below). A byte is special when it is '"', '\\',
   below 0x20 or from 0x80 up: as a signed char, the last two are one comparison (< 0x20).
   Vectors go through pointers, never by value, so no calling convention depends on them. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__) && !defined(MCP_NO_VECTOR) && \
    (defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__))
#define MCP__VECTOR 1
typedef signed char mcp__i8x16 __attribute__((vector_size(16)));

/* out: per byte of the 16 at p, -1 if it is special (ascii_only: if it is >= 0x80), else 0 */
static MCP__INLINE void mcp__special16(const unsigned char *p, int ascii_only, mcp__i8x16 *out)
{
    mcp__i8x16 x;
    memcpy(&x, p, 16);
    if (ascii_only) *out = x < 0;
    else *out = (x == '"') | (x == '\\') | (x < 0x20);
}

/* First byte of the 32 masked by a, b with its mask byte set (one is). */
static MCP__INLINE size_t mcp__first16x2(const mcp__i8x16 *a, const mcp__i8x16 *b)
{
    uint64_t m[4];
    int i;
    memcpy(m, a, 16); memcpy(m + 2, b, 16);
    for (i = 0; i < 3 && !m[i]; i++) {}
    return (size_t)i * 8 + (size_t)MCP__FIRST_BYTE(m[i]);
}
#endif

/* Nonzero if one of the 8 bytes at p is special (ascii_only: is >= 0x80); see mcp__special16. */
static MCP__INLINE uint64_t mcp__special8(const unsigned char *p, int ascii_only)
{
    uint64_t x;
    if (!ascii_only) return mcp__str_special8(p);
    memcpy(&x, p, 8);
    return x & 0x8080808080808080u;
}

#if defined(MCP__VECTOR) && defined(__x86_64__) && !defined(MCP_NO_AVX2) && \
    (defined(__AVX2__) || defined(__clang__) || __GNUC__ >= 8)
/* x86-64 machines with AVX2 (nearly all since 2013) scan 32 bytes a vector: the function is
   built for AVX2 whatever the compiler flags and called only where the CPU has it. The check
   reads the CPU features glibc (2.33 on, compiled as C: its header is C only) found at
   start-up, else the CPU model of libgcc or compiler-rt (__builtin_cpu_supports, 4.5 KB of
   code in a static libgcc); toolchains that cannot link that into a shared library (GCC
   before 8, some cross linkers) need MCP_NO_AVX2. */
#define MCP__AVX2 1
typedef signed char mcp__i8x32 __attribute__((vector_size(32)));
typedef char mcp__c8x32 __attribute__((vector_size(32)));     /* what pmovmskb takes */
#define MCP__TARGET_AVX2 __attribute__((target("avx2")))
#ifdef __AVX2__
#define MCP__HAS_AVX2() 1
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && !defined(__cplusplus)
#include <sys/platform/x86.h>
#define MCP__HAS_AVX2() CPU_FEATURE_ACTIVE(AVX2)
#else
#define MCP__HAS_AVX2() __builtin_cpu_supports("avx2")
#endif

/* Nonzero bytes where x's are special (see mcp__special16). x ^ 2 takes '"' (0x22) to 0x20 and
   keeps the control characters below it, so one signed compare finds both (and the bytes from
   0x80, as x < 0x20 would): ~10% faster than three tests. */
static MCP__INLINE MCP__TARGET_AVX2 void mcp__special32v(const mcp__i8x32 *x, int ascii_only, mcp__i8x32 *s)
{
    *s = ascii_only ? *x < 0 : ((*x ^ 2) < 0x21) | (*x == '\\');
}

/* Bit i set: byte i of the 32 at p is special. */
static MCP__INLINE MCP__TARGET_AVX2 unsigned mcp__special32(const unsigned char *p, int ascii_only)
{
    mcp__i8x32 x, s;
    memcpy(&x, p, 32);
    mcp__special32v(&x, ascii_only, &s);
    return (unsigned)__builtin_ia32_pmovmskb256((mcp__c8x32)s);
}

/* mcp__str_skip_long's vector steps: stops at a special byte or with under 32 bytes left.
   128 bytes a step, the four vectors' marks merged before the one test; the 32-byte steps
   then find the byte. */
static MCP__TARGET_AVX2 const unsigned char *mcp__str_skip_avx2(const unsigned char *p,
                                                                const unsigned char *end, int ascii_only,
                                                                unsigned char *o)
{
    mcp__i8x32 a, b, c, d, sa, sb, sc, sd, s;
    unsigned m = 0;
    while (end - p >= 128) {
        memcpy(&a, p, 32); memcpy(&b, p + 32, 32); memcpy(&c, p + 64, 32); memcpy(&d, p + 96, 32);
        mcp__special32v(&a, ascii_only, &sa); mcp__special32v(&b, ascii_only, &sb);
        mcp__special32v(&c, ascii_only, &sc); mcp__special32v(&d, ascii_only, &sd);
        s = (sa | sb) | (sc | sd);
        if (o) { memcpy(o, &a, 32); memcpy(o + 32, &b, 32); memcpy(o + 64, &c, 32); memcpy(o + 96, &d, 32); }
        if (__builtin_ia32_pmovmskb256((mcp__c8x32)s)) break;
        p += 128;
        if (o) o += 128;
    }
    while (end - p >= 32) {
        m = mcp__special32(p, ascii_only);
        if (o) memcpy(o, p, 32);
        if (m) break;
        p += 32;
        if (o) o += 32;
    }
    __builtin_ia32_vzeroupper();    /* GCC adds none below -O2: the SSE code after us would pay */
    return m ? p + __builtin_ctz(m) : p;
}
#endif

/* The long part of mcp__str_skip, out of line: strings past their first 64 bytes. */
static const unsigned char *mcp__str_skip_long(const unsigned char *p, const unsigned char *end,
                                               int ascii_only, unsigned char *out)
{
    const unsigned char *p0 = p;
    uint64_t m;
#ifdef MCP__VECTOR
    uint64_t x;
    mcp__i8x16 a, b, c, d, o;
#ifdef MCP__AVX2
    if (MCP__HAS_AVX2()) {
        p = mcp__str_skip_avx2(p, end, ascii_only, out);
        if (end - p >= 32) return p;                 /* stopped at a special byte */
    }
#endif
    while (end - p >= 64) {
        mcp__special16(p, ascii_only, &a); mcp__special16(p + 16, ascii_only, &b);
        mcp__special16(p + 32, ascii_only, &c); mcp__special16(p + 48, ascii_only, &d);
        if (out) memcpy(out + (p - p0), p, 64);
        o = (a | b) | (c | d);
        memcpy(&m, &o, 8); memcpy(&x, (const char *)&o + 8, 8);
        if (m | x) break;
        p += 64;
    }
    while (end - p >= 32) {
        mcp__special16(p, ascii_only, &a); mcp__special16(p + 16, ascii_only, &b);
        if (out) memcpy(out + (p - p0), p, 32);
        o = a | b;
        memcpy(&m, &o, 8); memcpy(&x, (const char *)&o + 8, 8);
        if (m | x) return p + mcp__first16x2(&a, &b);
        p += 32;
    }
#endif
    while (end - p >= 8) {
        if (out) memcpy(out + (p - p0), p, 8);
        if ((m = mcp__special8(p, ascii_only)) != 0) return p + MCP__FIRST_BYTE(m);
        p += 8;
    }
    return p;
}

/* p advanced past the bytes that need no attention in a string (see mcp__special16); with
   ascii_only, past the bytes below 0x80. It stops at the first byte that may need it or in
   the last 7 bytes before end: the caller's byte loop decides from there. Most strings are
   keys and short values: SWAR words inline settle them (vector registers only pay off over
   longer runs); past 64 bytes the scan goes on in vector steps (64 bytes, 128 with AVX2).
   out, if not NULL, gets a copy of the bytes passed over (out[i] = p[i]) in the same pass,
   and may get more of them, never any at or past end's position. */
static MCP__INLINE const unsigned char *mcp__str_skip(const unsigned char *p, const unsigned char *end,
                                                     int ascii_only, unsigned char *out)
{
    uint64_t m;
    int i;
    for (i = 0; i < 8 && end - p >= 8; i++) {
        if (out) { memcpy(out, p, 8); out += 8; }
        if ((m = mcp__special8(p, ascii_only)) != 0) return p + MCP__FIRST_BYTE(m);
        p += 8;
    }
    return end - p >= 8 ? mcp__str_skip_long(p, end, ascii_only, out) : p;
}

static int mcp__hex4(const unsigned char *p, unsigned *out)
{
    unsigned v = 0, c, i;
    for (i = 0; i < 4; i++) {
        c = p[i];
        if (c >= '0' && c <= '9') c -= '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') c = (c | 0x20) - 'a' + 10;
        else return 0;
        v = v * 16 + c;
    }
    *out = v;
    return 1;
}

/* Decodes the escape at p (p[0] == '\\', q: the end of the text) into *o. Returns the bytes
   it took (2, 6 or 12), 0 if it is no escape, -1 for a \u without four hex digits, -2 for a
   lone low surrogate and -3 for a high one without its low one (*cp: the code unit). */
static int mcp__escape(const unsigned char *p, const unsigned char *q, char **o, unsigned *cp)
{
    unsigned lo, c;
    int took = 6;
    char *w = *o;
    if (q - p < 2) return 0;
    switch (p[1]) {
    case '"': case '\\': case '/': c = p[1]; break;
    case 'b': c = '\b'; break;
    case 'f': c = '\f'; break;
    case 'n': c = '\n'; break;
    case 'r': c = '\r'; break;
    case 't': c = '\t'; break;
    case 'u': c = 0; break;
    default: return 0;
    }
    if (c) { *w++ = (char)c; *o = w; return 2; }
    if (q - p < 6 || !mcp__hex4(p + 2, cp)) return -1;
    c = *cp;
    if (c >= 0xDC00 && c <= 0xDFFF) return -2;
    if (c >= 0xD800 && c <= 0xDBFF) {
        if (q - p < 12 || p[6] != '\\' || p[7] != 'u' || !mcp__hex4(p + 8, &lo) || lo < 0xDC00 || lo > 0xDFFF)
            return -3;
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        took = 12;
    }
    if (c < 0x80) *w++ = (char)c;
    else if (c < 0x800) { *w++ = (char)(0xC0 | (c >> 6)); *w++ = (char)(0x80 | (c & 0x3F)); }
    else if (c < 0x10000) {
        *w++ = (char)(0xE0 | (c >> 12)); *w++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *w++ = (char)(0x80 | (c & 0x3F));
    } else {
        *w++ = (char)(0xF0 | (c >> 18)); *w++ = (char)(0x80 | ((c >> 12) & 0x3F));
        *w++ = (char)(0x80 | ((c >> 6) & 0x3F)); *w++ = (char)(0x80 | (c & 0x3F));
    }
    *o = w;
    return took;
}

/* Decode the escapes of a scanned string [p, q) into out; returns bytes written or -1. */
static long mcp__unescape(mcp__parser *ps, const unsigned char *p, const unsigned char *q, char *out)
{
    char *o = out;
    const unsigned char *bs;
    unsigned cp = 0;
    int k;
    while (p < q) {
        bs = (const unsigned char *)memchr(p, '\\', (size_t)(q - p));
        if (!bs) bs = q;
        memcpy(o, p, (size_t)(bs - p)); o += bs - p; p = bs;
        if (p >= q) break;
        if ((k = mcp__escape(p, q, &o, &cp)) > 0) { p += k; continue; }
        /* the scanner let only valid escape letters through: a \u went wrong */
        if (k == -2) mcp__perr(ps, MCP_ERR_PARSE, p, "lone low surrogate \\u%04X in a string", cp);
        else if (k == -3)
            mcp__perr(ps, MCP_ERR_PARSE, p, "high surrogate \\u%04X is not followed by a low surrogate", cp);
        else mcp__perr(ps, MCP_ERR_PARSE, p, "a \\u escape needs four hex digits");
        return -1;
    }
    return (long)(o - out);
}

#ifdef MCP__TEST_TWO_PASS_STRINGS            /* tests/test_novector.sh: the two passes alone */
#define MCP__ONE_PASS_STRINGS 0
#else
#define MCP__ONE_PASS_STRINGS 1
#endif

/* The common case of mcp__parse_string in one pass: the string (p: just past its quote) is
   checked and decoded straight into the arena's current block, when that block has room for
   the rest of the text (more than the string can need). NULL when it has not, or at anything
   out of the ordinary (an error, the end of the text): mcp__parse_string then takes its two
   passes, which report the error. Nothing is kept from a NULL attempt. */
static const unsigned char *mcp__parse_string_fast(mcp__parser *ps, const unsigned char *p, mcp_json *v)
{
    const unsigned char *end = ps->end, *q;
    mcp__block *b = ps->doc->blocks;
    char *out, *o;
    unsigned cp;
    int k, plain = MCP__STR_PLAIN;
    if (b->cap - b->used <= (size_t)(end - p)) return NULL;
    out = o = (char *)b + MCP__HDR + b->used;
    for (;;) {
        q = mcp__str_skip(p, end, 0, (unsigned char *)o);    /* the output never runs ahead of p */
        o += q - p; p = q;
        if (p >= end) return NULL;
        if (*p == '"') break;
        if (*p == '\\') {
            if ((k = mcp__escape(p, end, &o, &cp)) <= 0) return NULL;
            p += k;
            plain = 0;
        } else if (*p < 0x20) {
            return NULL;
        } else if (*p < 0x80) {
            *o++ = (char)*p++;
        } else {                              /* a run of non-ASCII characters at once */
            q = p;
            do {
                if (!(k = mcp__utf8_seq(p, end))) return NULL;
                p += k;
            } while (p < end && *p >= 0x80);
            memcpy(o, q, (size_t)(p - q)); o += p - q;
        }
    }
    *o = 0;
    b->used += (size_t)(o - out) + 1;
    v->type = MCP_JSON_STRING; v->flags = (unsigned char)plain; v->len = (uint32_t)(o - out); v->u.s = out;
    return p + 1;
}

/* p is just past the opening quote. Validates, copies into the arena, fills v.
   Returns the position after the closing quote, or NULL on error. */
static const unsigned char *mcp__parse_string(mcp__parser *ps, const unsigned char *p, mcp_json *v)
{
    const unsigned char *s = p, *end = ps->end;
    int esc = 0, n;
    char *out;
    long olen;
    const unsigned char *done;
    if (MCP__ONE_PASS_STRINGS && !ps->check && (done = mcp__parse_string_fast(ps, p, v)) != NULL) return done;
    for (;;) {
        p = mcp__str_skip(p, end, 0, NULL);
        if (MCP__UNLIKELY(p >= end)) {
            mcp__perr(ps, MCP_ERR_PARSE, s - 1, "unterminated string");
            return NULL;
        }
        if (*p == '"') break;
        if (*p == '\\') {
            esc = 1;
            if (p + 1 >= end) { mcp__perr(ps, MCP_ERR_PARSE, s - 1, "unterminated string"); return NULL; }
            switch (p[1]) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            case 'u': break;
            default:
                if (p[1] >= 0x21 && p[1] < 0x7F)
                    mcp__perr(ps, MCP_ERR_PARSE, p, "invalid escape '\\%c' in a string", p[1]);
                else mcp__perr(ps, MCP_ERR_PARSE, p, "invalid escape (backslash before byte 0x%02X) in a string", p[1]);
                return NULL;
            }
            p += 2;
        } else if (*p < 0x20) {
            mcp__perr(ps, MCP_ERR_PARSE, p, "control character U+%04X must be escaped in a string", *p);
            return NULL;
        } else if (*p < 0x80) {
            p++;
        } else if ((n = mcp__utf8_seq(p, end)) != 0) {
            p += n;
            while (p < end && *p >= 0x80 && (n = mcp__utf8_seq(p, end)) != 0) p += n;
        } else {
            mcp__perr(ps, MCP_ERR_PARSE, p, "invalid UTF-8 (byte 0x%02X) in a string", *p);
            return NULL;
        }
    }
    if (ps->check && !esc) {                      /* valid, and nobody will read it */
        v->type = MCP_JSON_STRING; v->flags = 0; v->len = (uint32_t)(p - s); v->u.s = "";
        return p + 1;
    }
    out = (char *)mcp__alloc(ps->doc, (size_t)(p - s) + 1, 1);
    if (!out) { mcp__perr(ps, MCP_ERR_NOMEM, s, "out of memory"); return NULL; }
    if (!esc) { memcpy(out, s, (size_t)(p - s)); olen = (long)(p - s); }
    else if ((olen = mcp__unescape(ps, s, p, out)) < 0) return NULL;
    out[olen] = 0;
    v->type = MCP_JSON_STRING; v->flags = esc ? 0 : MCP__STR_PLAIN; v->len = (uint32_t)olen; v->u.s = out;
    return p + 1;
}

/* Whether the literal mant x 10^e10 (with more nonzero digits when trunc) is exactly the
   whole number d, |d| <= 2^63, the range where mcp_json_int64 needs to know: a literal that
   needed more than 19 digits has a nonzero digit past any integer of 19. */
static int mcp__num_exact(uint64_t mant, int64_t e10, int trunc, double d)
{
    uint64_t u;
    double a = d < 0 ? -d : d;
    if (trunc || a > 9223372036854775808.0 || a != (double)(uint64_t)a) return 0;
    u = (uint64_t)a;
    for (; e10 > 0; e10--) { if (mant > UINT64_MAX / 10) return 0; mant *= 10; }
    for (; e10 < 0; e10++) { if (mant % 10) return 0; mant /= 10; }
    return mant == u;
}

static const unsigned char *mcp__parse_number(mcp__parser *ps, const unsigned char *p, mcp_json *v)
{
    const unsigned char *s = p, *end = ps->end;
    uint64_t mant = 0, bits, b2;
    int neg = 0, ndig = 0, is_int = 1, trunc = 0, fast = 0;
    int64_t e10 = 0, ex = 0, esign = 1;
    double d;
    if (*p == '-') { neg = 1; p++; }
    if (p >= end || *p < '0' || *p > '9') { mcp__perr_expect(ps, p, "a digit after '-'"); return NULL; }
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9') {
            mcp__perr(ps, MCP_ERR_PARSE, s, "numbers must not have leading zeros");
            return NULL;
        }
    } else {
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (ndig < 19) { mant = mant * 10 + (uint64_t)(*p - '0'); ndig++; }
            else { e10++; if (*p != '0') trunc = 1; }
        }
    }
    if (p < end && *p == '.') {
        is_int = 0; p++;
        if (p >= end || *p < '0' || *p > '9') { mcp__perr_expect(ps, p, "a digit after the decimal point"); return NULL; }
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (mant == 0 && *p == '0') e10--;
            else if (ndig < 19) { mant = mant * 10 + (uint64_t)(*p - '0'); ndig++; e10--; }
            else if (*p != '0') trunc = 1;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_int = 0; p++;
        if (p < end && (*p == '+' || *p == '-')) { esign = *p == '-' ? -1 : 1; p++; }
        if (p >= end || *p < '0' || *p > '9') { mcp__perr_expect(ps, p, "a digit in the exponent"); return NULL; }
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (ex < MCP__EXP_CAP) ex = ex * 10 + (*p - '0');
        e10 += esign * ex;
    }
    v->type = MCP_JSON_NUMBER; v->len = 0;
    if (is_int && e10 == 0) {           /* at most 19 digits: int64 unless out of range */
        if (!neg && mant <= (uint64_t)INT64_MAX) { v->flags = MCP__NUM_INT; v->u.i = (int64_t)mant; return p; }
        if (neg && mant <= (uint64_t)INT64_MAX) { v->flags = MCP__NUM_INT; v->u.i = -(int64_t)mant; return p; }
        if (neg && mant == (uint64_t)1 << 63) { v->flags = MCP__NUM_INT; v->u.i = INT64_MIN; return p; }
    }
    v->flags = 0;
    if (mant == 0) { v->u.d = neg ? -0.0 : 0.0; return p; }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (!trunc && mant <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
        d = (double)mant;
        d = e10 < 0 ? d / mcp__pow10_exact[-e10] : d * mcp__pow10_exact[e10];
        d = neg ? -d : d;
        fast = 1;
    } else
#endif
    if (e10 >= -348 && e10 <= 347 && mcp__eisel_lemire(mant, (int)e10, &bits) &&
        (!trunc || (mcp__eisel_lemire(mant + 1, (int)e10, &b2) && b2 == bits))) {
        d = mcp__bitsd(bits | (neg ? (uint64_t)1 << 63 : 0));
    } else if (mcp__slow_double((const char *)s, (const char *)p, &bits)) {
        d = mcp__bitsd(bits);
    } else {
        mcp__perr(ps, MCP_ERR_PARSE, s, "the number %.*s%s is too large for a double",
                  (int)(p - s > 40 ? 40 : p - s), (const char *)s, p - s > 40 ? "..." : "");
        return NULL;
    }
    v->u.d = d;
    /* A double that is a whole number may be the rounding of another literal: from 2^53 on
       (-9223372036854775809 becomes -2^63), or below it off the fast path, which never rounds
       a fraction to a whole number (1.00000000000000000001, 1e-400): mcp_json_int64 must not
       call that exact. */
    if (MCP__UNLIKELY(!fast || d >= 9007199254740992.0 || d <= -9007199254740992.0) && !mcp__num_exact(mant, e10, trunc, d))
        v->flags = MCP__NUM_INEXACT;                  /* (a fraction marked so is not whole anyway) */
    return p;
}

static const unsigned char *mcp__parse_literal(mcp__parser *ps, const unsigned char *p, mcp_json *v)
{
    size_t left = (size_t)(ps->end - p);
    v->flags = 0; v->len = 0; v->u.i = 0;
    if (left >= 4 && !memcmp(p, "true", 4)) { v->type = MCP_JSON_BOOL; v->u.i = 1; return p + 4; }
    if (left >= 5 && !memcmp(p, "false", 5)) { v->type = MCP_JSON_BOOL; return p + 5; }
    if (left >= 4 && !memcmp(p, "null", 4)) { v->type = MCP_JSON_NULL; return p + 4; }
    mcp__perr_expect(ps, p, "a value");
    return NULL;
}

/* Closes the innermost container: moves its children from the value stack into the arena. */
static int mcp__close(mcp__parser *ps)
{
    mcp__frame *f = &ps->fs[--ps->fn];
    size_t n = ps->vn - f->start;
    mcp_json *kids = NULL, *v;
    if (n && !ps->check) {
        kids = (mcp_json *)mcp__alloc(ps->doc, n * sizeof(mcp_json), MCP__ALIGN);
        if (!kids) return 0;
        memcpy(kids, ps->vs + f->start, n * sizeof(mcp_json));
    }
    ps->vn = f->start;
    v = &ps->vs[ps->vn++];   /* there is room: the container's slot was reserved at open */
    v->type = (unsigned char)(f->is_obj ? MCP_JSON_OBJECT : MCP_JSON_ARRAY);
    v->flags = 0;
    v->len = (uint32_t)(f->is_obj ? n / 2 : n);
    v->u.kids = kids;
    return 1;
}

/* Reserve one value slot; returns NULL when out of memory. */
static MCP__INLINE mcp_json *mcp__push(mcp__parser *ps)
{
    if (MCP__UNLIKELY(ps->vn == ps->vcap) &&
        !mcp__grow((void **)&ps->vs, &ps->vcap, sizeof(mcp_json), ps->vn + 1, ps->vs_inline, ps->ctx))
        return NULL;
    return &ps->vs[ps->vn++];
}

static int mcp__open(mcp__parser *ps, int is_obj, const unsigned char *at)
{
    if (MCP__UNLIKELY(ps->fn >= ps->max_depth)) {
        mcp__perr(ps, MCP_ERR_LIMIT, at, "nesting is deeper than the limit of %lu levels",
                  (unsigned long)ps->max_depth);
        return 0;
    }
    if (MCP__UNLIKELY(ps->fn == ps->fcap) &&
        !mcp__grow((void **)&ps->fs, &ps->fcap, sizeof(mcp__frame), ps->fn + 1, ps->fs_inline,
                   ps->ctx)) {
        mcp__perr(ps, MCP_ERR_NOMEM, at, "out of memory");
        return 0;
    }
    /* reserve the container's own slot below its children so closing never reallocates */
    if (!mcp__push(ps)) { mcp__perr(ps, MCP_ERR_NOMEM, at, "out of memory"); return 0; }
    ps->vn--;
    ps->fs[ps->fn].start = ps->vn;
    ps->fs[ps->fn].is_obj = (unsigned char)is_obj;
    ps->fn++;
    return 1;
}

/* The iterative parser: one loop, an explicit stack, no recursion. */
static int mcp__parse_doc(mcp__parser *ps)
{
    const unsigned char *p = ps->beg, *end = ps->end;
    mcp_json *v;
    unsigned c;
value:
    p = mcp__skip_ws(ps, p);
    if (MCP__UNLIKELY(p >= end)) {
        mcp__perr_expect(ps, p, "a value");
        return 0;
    }
    c = *p;
    if (MCP__UNLIKELY(c == 0xEF && p == ps->beg && end - p >= 3 && p[1] == 0xBB && p[2] == 0xBF)) {
        mcp__perr(ps, MCP_ERR_PARSE, p, "a byte order mark is not allowed before JSON text");
        return 0;
    }
    if (c == '{' || c == '[') {
        if (!mcp__open(ps, c == '{', p)) return 0;
        p = mcp__skip_ws(ps, p + 1);
        if (p < end && *p == (c == '{' ? '}' : ']')) {
            p++;
            if (!mcp__close(ps)) goto nomem;
            goto after;
        }
        if (c == '[') goto value;
        goto key;
    }
    if (!(v = mcp__push(ps))) goto nomem;
    if (c == '"') p = mcp__parse_string(ps, p + 1, v);
    else if (c == '-' || (c >= '0' && c <= '9')) p = mcp__parse_number(ps, p, v);
    else p = mcp__parse_literal(ps, p, v);
    if (!p) return 0;
after:
    if (ps->fn == 0) {
        p = mcp__skip_ws(ps, p);
        if (p < end) {
            mcp__perr(ps, MCP_ERR_PARSE, p, "unexpected data after the JSON value");
            return 0;
        }
        return 1;
    }
    p = mcp__skip_ws(ps, p);
    if (ps->fs[ps->fn - 1].is_obj) {
        if (p < end && *p == ',') { p = mcp__skip_ws(ps, p + 1); goto key; }
        if (p < end && *p == '}') { p++; if (!mcp__close(ps)) goto nomem; goto after; }
        mcp__perr_expect(ps, p, "',' or '}'");
        return 0;
    }
    if (p < end && *p == ',') { p++; goto value; }
    if (p < end && *p == ']') { p++; if (!mcp__close(ps)) goto nomem; goto after; }
    mcp__perr_expect(ps, p, "',' or ']'");
    return 0;
key:
    if (p >= end || *p != '"') {
        mcp__perr_expect(ps, p, "a string key");
        return 0;
    }
    if (!(v = mcp__push(ps))) goto nomem;
    if (!(p = mcp__parse_string(ps, p + 1, v))) return 0;
    p = mcp__skip_ws(ps, p);
    if (p >= end || *p != ':') {
        mcp__perr_expect(ps, p, "':' after the key");
        return 0;
    }
    p++;
    goto value;
nomem:
    mcp__perr(ps, MCP_ERR_NOMEM, p, "out of memory");
    return 0;
}

/* Line, column (characters) and byte offset of an error position, for the message. */
static void mcp__locate(const unsigned char *beg, const unsigned char *at,
                        unsigned long *line, unsigned long *col)
{
    const unsigned char *p;
    *line = 1; *col = 1;
    for (p = beg; p < at; p++) {
        if (*p == '\n') { (*line)++; *col = 1; }
        else if ((*p & 0xC0) != 0x80) (*col)++;
    }
}

MCPDEF void mcp_json_free(mcp_json_doc *doc)
{
    mcp__block *b, *next;
    void *ctx;
    if (!doc) return;
    ctx = doc->ctx;
    for (b = doc->blocks; b; b = next) { next = b->next; MCP_FREE(b, ctx); }
}

/* check: the text is only checked (mcp__json_check); the document is a shell of the root. */
static mcp_json_doc *mcp__parse(const char *text, size_t len, const mcp_json_opts *opts, int check,
                                mcp_error *err)
{
    mcp__parser ps;
    mcp__block *first;
    mcp_json_doc *doc;
    size_t max_size = opts && opts->max_size ? opts->max_size : MCP_JSON_MAX_SIZE;
    void *ctx = opts ? opts->alloc_ctx : NULL;
    unsigned long line, col;
    int ok;
    if (max_size > 0xFFFFFFFFu) max_size = 0xFFFFFFFFu;   /* lengths are 32-bit */
    if (!text && len) {
        mcp__fail(err, MCP_ERR_INVALID, "mcp_json_parse was given a NULL text of %lu bytes.",
                  (unsigned long)len);
        return NULL;
    }
    if (!text) text = "";                                 /* len is 0: no pointer arithmetic on NULL */
    if (len > max_size) {
        mcp__fail(err, MCP_ERR_LIMIT, "The JSON text is %lu bytes, over the limit of %lu bytes "
                  "(raise mcp_json_opts.max_size).", (unsigned long)len, (unsigned long)max_size);
        return NULL;
    }
    /* One block usually holds the whole document: values and strings rarely exceed the
       input's size. The document header sits at its start. */
    /* Compact text (every MCP message on the wire) needs about 2.1x its size; indented
       corpora need less. Small inputs get room for the compact case, so one malloc does. */
    first = mcp__block_new(sizeof(mcp_json_doc) + 256 + (check ? 0 : len + len / 2 +
                           (len <= 65536 ? len : 0)), ctx);
    if (!first) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory parsing JSON."); return NULL; }
    doc = (mcp_json_doc *)((char *)first + MCP__HDR);
    first->used = (sizeof(mcp_json_doc) + MCP__ALIGN - 1) & ~(size_t)(MCP__ALIGN - 1);
    doc->blocks = first; doc->ctx = ctx; doc->multiline = 0; doc->deep = 0;

    ps.beg = (const unsigned char *)text; ps.end = ps.beg + len;
    ps.doc = doc; ps.ctx = ctx;
    ps.vn = 0; ps.fn = 0; ps.st = MCP_OK; ps.err_at = ps.beg; ps.what[0] = 0;
    ps.vs = ps.vs_inline; ps.vcap = sizeof ps.vs_inline / sizeof ps.vs_inline[0];
    ps.fs = ps.fs_inline; ps.fcap = sizeof ps.fs_inline / sizeof ps.fs_inline[0];
    ps.max_depth = opts && opts->max_depth ? opts->max_depth : MCP_JSON_MAX_DEPTH;
    ps.check = check;
    ok = mcp__parse_doc(&ps);
    if (ok) doc->root = ps.vs[0];
    if (ps.vs != ps.vs_inline) MCP_FREE(ps.vs, ctx);
    if (ps.fs != ps.fs_inline) { MCP_FREE(ps.fs, ctx); doc->deep = 1; }
    if (!ok) {
        mcp_json_free(doc);
        if (ps.st == MCP_ERR_NOMEM) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory parsing JSON."); return NULL; }
        mcp__locate(ps.beg, ps.err_at, &line, &col);
        mcp__fail(err, ps.st, "JSON parse error at line %lu, column %lu (byte %lu): %s", line, col,
                  (unsigned long)(ps.err_at - ps.beg), ps.what);
        return NULL;
    }
    mcp__ok(err);
    return doc;
}

#ifndef MCP_NO_HOST   /* config files are the host's: the smallest builds leave this out */
/* ---- JSON with comments (mcp_json_opts.comments) -----------------------------------------
   Made strict before the parse, so the strict parser stays as it is: a copy of the text in
   which every comment, and every comma before a ']' or '}' that follows a value, is turned
   into spaces (line breaks kept: every offset and line number stays). Returns the offset of
   the first thing no blanking mends (a block comment never closed, a '/' that begins no
   comment), *what saying it; len when there is none. From there on the copy is the text. */
static size_t mcp__uncomment(const char *in, char *out, size_t len, const char **what)
{
    size_t i = 0, j;
    char c, prev = 0;                       /* the last byte of the last token; 0: none yet */
    memcpy(out, in, len);
    while (i < len) {
        c = in[i];
        if (c == '"') {                     /* a string: to its closing quote (the parser checks it) */
            for (j = i + 1; j < len && in[j] != '"'; j++) if (in[j] == '\\') j++;
            i = j + 1; prev = '"';
        } else if (c == '/' && i + 1 < len && in[i + 1] == '/') {
            for (; i < len && in[i] != '\n' && in[i] != '\r'; i++) out[i] = ' ';
        } else if (c == '/' && i + 1 < len && in[i + 1] == '*') {
            for (j = i + 2; j + 1 < len && !(in[j] == '*' && in[j + 1] == '/'); j++) {}
            if (j + 1 >= len) { *what = "unterminated block comment (no */ after its /*)"; return i; }
            for (j += 2; i < j; i++) if (in[i] != '\n' && in[i] != '\r') out[i] = ' ';
        } else if (c == '/') {
            *what = "a '/' that begins no comment (// or /*)";
            return i;
        } else {
            if (c == ',' && prev && prev != '[' && prev != '{' && prev != ',' && prev != ':') {
                for (j = i + 1; j < len; ) {        /* what comes next, past space and comments */
                    if (in[j] == ' ' || in[j] == '\t' || in[j] == '\n' || in[j] == '\r') j++;
                    else if (in[j] == '/' && j + 1 < len && in[j + 1] == '/')
                        while (j < len && in[j] != '\n' && in[j] != '\r') j++;
                    else if (in[j] == '/' && j + 1 < len && in[j + 1] == '*') {
                        for (j += 2; j + 1 < len && !(in[j] == '*' && in[j + 1] == '/'); j++) {}
                        j += 2;
                    } else break;
                }
                if (j < len && (in[j] == ']' || in[j] == '}')) out[i] = ' ';   /* a trailing comma */
            }
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') prev = c;
            i++;
        }
    }
    return len;
}

/* Where and why a parse failed, for a caller that words its own sentence (>>host.config). */
typedef struct mcp__jerr { size_t at; char what[160]; } mcp__jerr;

/* The parse of a text with comments: the strict parse of its uncommented copy. An error at
   or after what the copy could not mend is that, not the parser's. je (may be NULL): on a
   syntax or depth error, its offset and bare reason (else at is (size_t)-1). mcp__parse is
   left exactly as strict parsing has it (its code is sensitive to one more live value:
   measured), so the place and reason are read back from its sentence, whose form is the
   one written there. */
static mcp_json_doc *mcp__parse_comments(const char *text, size_t len, const mcp_json_opts *opts,
                                         mcp_error *err, mcp__jerr *je)
{
    mcp_json_opts strict = *opts;
    mcp_error pe;
    mcp_json_doc *doc;
    const char *what = NULL, *b, *w;
    char *copy;
    size_t bad, at;
    unsigned long line, col;
    mcp_status st;
    strict.comments = 0;
    if (je) { je->at = (size_t)-1; je->what[0] = 0; }
    if (!text || !len || len > (opts->max_size ? opts->max_size : MCP_JSON_MAX_SIZE)) {
        bad = len;                                          /* nothing to copy */
        doc = mcp__parse(text, len, &strict, 0, &pe);
    } else if (!(copy = (char *)MCP_MALLOC(len, opts->alloc_ctx))) {
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory parsing JSON.");
        return NULL;
    } else {
        bad = mcp__uncomment(text, copy, len, &what);
        doc = mcp__parse(copy, len, &strict, 0, &pe);
        MCP_FREE(copy, opts->alloc_ctx);
    }
    if (doc) { mcp__ok(err); return doc; }
    b = pe.status == MCP_ERR_NOMEM ? NULL : strstr(pe.message, "(byte ");
    if (!b || !(w = strstr(b, "): "))) { if (err) *err = pe; return NULL; }
    st = pe.status;
    at = (size_t)strtoul(b + 6, NULL, 10);
    w += 3;
    if (what && at >= bad) { st = MCP_ERR_PARSE; at = bad; w = what; }
    if (je) { je->at = at; snprintf(je->what, sizeof je->what, "%s", w); }
    if (!text) text = "";                                   /* len 0: no arithmetic on NULL */
    mcp__locate((const unsigned char *)text, (const unsigned char *)text + at, &line, &col);
    mcp__fail(err, st, "JSON parse error at line %lu, column %lu (byte %lu): %s", line, col,
              (unsigned long)at, w);   /* columns counted in the text, not in the copy */
    return NULL;
}

#endif /* MCP_NO_HOST */

MCPDEF mcp_json_doc *mcp_json_parse_ex(const char *text, size_t len, const mcp_json_opts *opts,
                                       mcp_error *err)
{
#ifndef MCP_NO_HOST
    if (opts && opts->comments) return mcp__parse_comments(text, len, opts, err, NULL);
#else
    if (opts && opts->comments) {
        mcp__fail(err, MCP_ERR_INVALID, "JSON with comments is for config files, which this build leaves out "
                  "(MCP_NO_HOST).");
        return NULL;
    }
#endif
    return mcp__parse(text, len, opts, 0, err);
}

#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
/* Pointers into the block that was at `from` (size bytes) now point into the one at `to`. */
static void mcp__json_rebase(mcp_json *v, size_t n, uintptr_t from, uintptr_t to, size_t size)
{
    /* A container's children are one contiguous run; a stack of runs (one per open
       container) replaces recursion. Documents marked deep are never moved, so it fits. */
    typedef struct { mcp_json *v; size_t n; } run;
    run st[MCP__FRAMES + 2];
    size_t sn = 0;
    st[sn].v = v; st[sn].n = n; sn++;
    while (sn) {
        run *r = &st[sn - 1];
        uintptr_t at;
        if (!r->n) { sn--; continue; }
        v = r->v++; r->n--;
        if (v->type != MCP_JSON_STRING && (v->type < MCP_JSON_ARRAY || !v->len)) continue;
        at = (uintptr_t)v->u.s;
        if (at - from < size) v->u.s = (const char *)(to + (at - from));
        if (v->type == MCP_JSON_STRING) continue;
        st[sn].v = (mcp_json *)v->u.kids;
        st[sn].n = v->type == MCP_JSON_OBJECT ? 2 * (size_t)v->len : v->len;
        sn++;
    }
}

/* The parser sizes a document's first block for the densest text (2.5x a small input), so
   a message of prose holds about twice the memory it uses. The client may hold many parsed
   messages at once (answers waiting to be taken), so it gives the unused tail back.
   realloc usually shrinks in place; when it moves the block, the values are rebased. */
static mcp_json_doc *mcp__json_trim(mcp_json_doc *doc)
{
    mcp__block *b = doc->blocks, *nb;
    uintptr_t from;
    size_t keep;
    if (b->next || doc->deep || b->cap - b->used < 512) return doc;
    keep = (b->used + MCP__ALIGN - 1) & ~(size_t)(MCP__ALIGN - 1);
    nb = (mcp__block *)MCP_REALLOC(b, MCP__HDR + keep, doc->ctx);
    if (!nb) return doc;                /* the old block is intact */
    nb->cap = keep;
    doc = (mcp_json_doc *)((char *)nb + MCP__HDR);
    from = (uintptr_t)doc->blocks;      /* the old address, as a number: that block is gone */
    if ((uintptr_t)nb != from) {
        doc->blocks = nb;
        mcp__json_rebase(&doc->root, 1, from, (uintptr_t)nb, MCP__HDR + keep);
    }
    return doc;
}

/* Is the text one valid JSON value? As a parse, without building the tree: for text the
   client only passes on. The root's type is kept (NULL on error, like mcp_json_parse). */
static mcp_json_doc *mcp__json_check(const char *text, size_t len, mcp_error *err)
{
    return mcp__parse(text, len, NULL, 1, err);
}
#endif

MCPDEF mcp_json_doc *mcp_json_parse(const char *text, size_t len, mcp_error *err)
{
    return mcp_json_parse_ex(text, len, NULL, err);
}

/* ---- accessors ---------------------------------------------------------------------------- */

MCPDEF const mcp_json *mcp_json_root(const mcp_json_doc *doc) { return doc ? &doc->root : NULL; }

MCPDEF mcp_json_type mcp_json_typeof(const mcp_json *v)
{
    return v ? (mcp_json_type)v->type : MCP_JSON_NULL;
}

MCPDEF size_t mcp_json_len(const mcp_json *v)
{
    return v && v->type >= MCP_JSON_STRING ? v->len : 0;
}

MCPDEF const mcp_json *mcp_json_getn(const mcp_json *obj, const char *key, size_t keylen)
{
    const mcp_json *k;
    if (!obj || obj->type != MCP_JSON_OBJECT || !key || !obj->len) return NULL;
    /* from the end: the last duplicate wins, as in JavaScript */
    for (k = obj->u.kids + 2 * (size_t)obj->len; k > obj->u.kids; ) {
        k -= 2;
        if (k->len == keylen && !memcmp(k->u.s, key, keylen)) return k + 1;
    }
    return NULL;
}

MCPDEF const mcp_json *mcp_json_get(const mcp_json *obj, const char *key)
{
    return key ? mcp_json_getn(obj, key, strlen(key)) : NULL;
}

MCPDEF const mcp_json *mcp_json_at(const mcp_json *v, size_t i)
{
    if (!v || i >= v->len) return NULL;
    if (v->type == MCP_JSON_ARRAY) return v->u.kids + i;
    if (v->type == MCP_JSON_OBJECT) return v->u.kids + 2 * i + 1;
    return NULL;
}

MCPDEF const char *mcp_json_key_at(const mcp_json *obj, size_t i, size_t *keylen)
{
    const mcp_json *k;
    if (!obj || obj->type != MCP_JSON_OBJECT || i >= obj->len) {
        if (keylen) *keylen = 0;
        return NULL;
    }
    k = obj->u.kids + 2 * i;
    if (keylen) *keylen = k->len;
    return k->u.s;
}

MCPDEF const char *mcp_json_str(const mcp_json *v)
{
    return v && v->type == MCP_JSON_STRING ? v->u.s : NULL;
}

MCPDEF double mcp_json_num(const mcp_json *v)
{
    if (!v || v->type != MCP_JSON_NUMBER) return 0;
    return v->flags & MCP__NUM_INT ? (double)v->u.i : v->u.d;
}

MCPDEF int mcp_json_int64(const mcp_json *v, int64_t *out)
{
    int64_t i;
    if (!v || v->type != MCP_JSON_NUMBER) return 0;
    if (v->flags & MCP__NUM_INT) i = v->u.i;
    else if (!(v->flags & MCP__NUM_INEXACT) && v->u.d >= -9223372036854775808.0 && v->u.d < 9223372036854775808.0 &&
             v->u.d == (double)(int64_t)v->u.d) i = (int64_t)v->u.d;
    else return 0;
    if (out) *out = i;
    return 1;
}

MCPDEF int mcp_json_is_true(const mcp_json *v)
{
    return v && v->type == MCP_JSON_BOOL && v->u.i;
}

/* Equal numbers: both exact integers with the same value, or the same double (so 1 and 1.0
   differ, as they do when written back). Iterative, for any depth. */
static int mcp__equal_scalar(const mcp_json *a, const mcp_json *b)
{
    if (a->type != b->type || a->len != b->len) return 0;
    switch (a->type) {
    case MCP_JSON_NULL: return 1;
    case MCP_JSON_BOOL: return a->u.i == b->u.i;
    case MCP_JSON_NUMBER:
        if ((a->flags ^ b->flags) & MCP__NUM_INT) return 0;
        if (a->flags & MCP__NUM_INT) return a->u.i == b->u.i;
        return mcp__dbits(a->u.d) == mcp__dbits(b->u.d);
    case MCP_JSON_STRING: return !memcmp(a->u.s, b->u.s, a->len);
    default: return 1;   /* containers: same length, children compared by the caller */
    }
}

MCPDEF int mcp_json_equal(const mcp_json *a, const mcp_json *b)
{
    /* Containers' children are contiguous, so a whole container is a flat run of values;
       an explicit stack of runs replaces recursion. */
    typedef struct { const mcp_json *a, *b; size_t n; } run;
    run inl[32], *st = inl, *nst;
    size_t sn = 0, scap = 32, n;
    int eq = 1;
    if (!a || !b) return a == b;
    if (!mcp__equal_scalar(a, b)) return 0;
    st[sn].a = a; st[sn].b = b; st[sn].n = 1; sn++;
    while (sn && eq) {
        run *r = &st[sn - 1];
        const mcp_json *x, *y;
        if (!r->n) { sn--; continue; }
        x = r->a++; y = r->b++; r->n--;
        if (!mcp__equal_scalar(x, y)) { eq = 0; break; }
        if (x->type < MCP_JSON_ARRAY || !x->len) continue;
        n = x->type == MCP_JSON_OBJECT ? 2 * (size_t)x->len : x->len;
        if (sn == scap) {
            nst = (run *)MCP_MALLOC(2 * scap * sizeof(run), NULL);
            if (!nst) { eq = 0; break; }   /* cannot finish: report "not equal" */
            memcpy(nst, st, sn * sizeof(run));
            if (st != inl) MCP_FREE(st, NULL);
            st = nst; scap *= 2;
        }
        st[sn].a = x->u.kids; st[sn].b = y->u.kids; st[sn].n = n; sn++;
    }
    if (st != inl) MCP_FREE(st, NULL);
    return eq;
}

/* ---- the writer ----------------------------------------------------------------------------
   Per open container one byte of state: bit 0 object, bit 1 has items, bit 2 a key was
   written and its value is due. */

enum { MCP__JW_OBJ = 1, MCP__JW_ITEMS = 2, MCP__JW_KEY = 4 };

MCPDEF void mcp_jw_init(mcp_jw *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
}

MCPDEF void mcp_jw_free(mcp_jw *w)
{
    if (!w) return;
    MCP_FREE(w->buf, NULL);
    MCP_FREE(w->stack, NULL);
    w->buf = NULL; w->stack = NULL;
    w->len = w->cap = w->depth = w->stack_cap = 0;
    w->done = 0; w->status = MCP_OK; w->what = NULL;
}

MCPDEF void mcp_jw_reset(mcp_jw *w)
{
    w->len = 0; w->depth = 0; w->done = 0; w->status = MCP_OK; w->what = NULL;
}

static mcp_status mcp__jw_fail(mcp_jw *w, mcp_status st, const char *what)
{
    if (w->status == MCP_OK) { w->status = st; w->what = what; }
    return w->status;
}

/* Room for n more bytes. */
static int mcp__jw_room(mcp_jw *w, size_t n)
{
    size_t cap;
    char *nb;
    if (MCP__LIKELY(w->cap - w->len >= n)) return 1;
    cap = w->cap ? w->cap : 256;
    while (cap - w->len < n) {
        if (cap > ((size_t)-1) / 2) { mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory"); return 0; }
        cap *= 2;
    }
    nb = (char *)MCP_REALLOC(w->buf, cap, NULL);
    if (!nb) { mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory"); return 0; }
    w->buf = nb; w->cap = cap;
    return 1;
}

static MCP__INLINE void mcp__jw_put(mcp_jw *w, const char *s, size_t n)
{
    if (mcp__jw_room(w, n)) { memcpy(w->buf + w->len, s, n); w->len += n; }
}

static void mcp__jw_indent(mcp_jw *w, size_t depth)
{
    if (!mcp__jw_room(w, 1 + 2 * depth)) return;
    w->buf[w->len++] = '\n';
    memset(w->buf + w->len, ' ', 2 * depth);
    w->len += 2 * depth;
}

/* Before any value: checks that a value may come here, writes the separator. */
static int mcp__jw_pre_value(mcp_jw *w)
{
    unsigned char *top;
    if (w->status != MCP_OK) return 0;
    if (w->depth == 0) {
        if (w->done) { mcp__jw_fail(w, MCP_ERR_INVALID, "a second value after the complete top-level value"); return 0; }
        return 1;
    }
    top = &w->stack[w->depth - 1];
    if (*top & MCP__JW_OBJ) {
        if (!(*top & MCP__JW_KEY)) { mcp__jw_fail(w, MCP_ERR_INVALID, "a value where an object key is due"); return 0; }
        *top &= (unsigned char)~MCP__JW_KEY;
        return 1;
    }
    if (*top & MCP__JW_ITEMS) mcp__jw_put(w, ",", 1);
    *top |= MCP__JW_ITEMS;
    if (w->pretty) mcp__jw_indent(w, w->depth);
    return w->status == MCP_OK;
}

static void mcp__jw_post_value(mcp_jw *w)
{
    if (w->depth == 0) w->done = 1;
}

static mcp_status mcp__jw_begin(mcp_jw *w, int is_obj)
{
    if (!mcp__jw_pre_value(w)) return w->status;
    if (w->depth == w->stack_cap &&
        !mcp__grow((void **)&w->stack, &w->stack_cap, 1, w->depth + 1, NULL, NULL))
        return mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory");
    w->stack[w->depth++] = (unsigned char)(is_obj ? MCP__JW_OBJ : 0);
    mcp__jw_put(w, is_obj ? "{" : "[", 1);
    return w->status;
}

static mcp_status mcp__jw_end(mcp_jw *w, int is_obj)
{
    unsigned char top;
    if (w->status != MCP_OK) return w->status;
    if (w->depth == 0)
        return mcp__jw_fail(w, MCP_ERR_INVALID, is_obj ? "an object end with no object open"
                                                       : "an array end with no array open");
    top = w->stack[w->depth - 1];
    if (!(top & MCP__JW_OBJ) != !is_obj)
        return mcp__jw_fail(w, MCP_ERR_INVALID, is_obj ? "an object end while an array is open"
                                                       : "an array end while an object is open");
    if (top & MCP__JW_KEY) return mcp__jw_fail(w, MCP_ERR_INVALID, "an object end right after a key");
    w->depth--;
    if (w->pretty && (top & MCP__JW_ITEMS)) mcp__jw_indent(w, w->depth);
    mcp__jw_put(w, is_obj ? "}" : "]", 1);
    mcp__jw_post_value(w);
    return w->status;
}

MCPDEF mcp_status mcp_jw_obj_begin(mcp_jw *w) { return mcp__jw_begin(w, 1); }
MCPDEF mcp_status mcp_jw_arr_begin(mcp_jw *w) { return mcp__jw_begin(w, 0); }
MCPDEF mcp_status mcp_jw_obj_end(mcp_jw *w) { return mcp__jw_end(w, 1); }
MCPDEF mcp_status mcp_jw_arr_end(mcp_jw *w) { return mcp__jw_end(w, 0); }

/* A parsed string that had no escape: valid UTF-8 with nothing to escape, written as it is. */
static void mcp__jw_plain(mcp_jw *w, const char *s, size_t n)
{
    if (n > (size_t)-1 - 2 || !mcp__jw_room(w, n + 2)) { mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory"); return; }
    w->buf[w->len] = '"';
    memcpy(w->buf + w->len + 1, s, n);
    w->buf[w->len + n + 1] = '"';
    w->len += n + 2;
}

/* The string quoted and escaped, its UTF-8 checked on the way; invalid UTF-8 fails the writer and takes its text back to
   `undo` (a misuse writes nothing, not even the comma before it). */
static void mcp__jw_quoted(mcp_jw *w, const char *s, size_t n, size_t undo)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s, *end = p + n, *run;
    char *o;
    /* worst case: every byte becomes \u00XX */
    if (n > ((size_t)-1 - 2) / 6 || !mcp__jw_room(w, n * 6 + 2)) {
        mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory");
        return;
    }
    o = w->buf + w->len;
    *o++ = '"';
    while (p < end) {
        run = mcp__str_skip(p, end, 0, (unsigned char *)o);  /* copied as it is scanned */
        o += run - p; p = run;
        while (p < end && *p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80) *o++ = (char)*p++;
        if (p >= end) break;
        if (*p >= 0x80) {   /* a run of non-ASCII characters, checked here in the one pass */
            int k;
            run = p;
            do {
                if (!(k = mcp__utf8_seq(p, end))) {
                    w->len = undo;
                    mcp__jw_fail(w, MCP_ERR_INVALID, "a string that is not valid UTF-8");
                    return;
                }
                p += k;
            } while (p < end && *p >= 0x80);
            memcpy(o, run, (size_t)(p - run)); o += p - run;
            continue;
        }
        *o++ = '\\';
        switch (*p) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u'; *o++ = '0'; *o++ = '0';
            *o++ = hex[*p >> 4]; *o++ = hex[*p & 15];
        }
        p++;
    }
    *o++ = '"';
    w->len = (size_t)(o - w->buf);
}

MCPDEF mcp_status mcp_jw_keyn(mcp_jw *w, const char *key, size_t len)
{
    unsigned char *top;
    size_t before;
    if (w->status != MCP_OK) return w->status;
    if (!key) return mcp__jw_fail(w, MCP_ERR_INVALID, "a NULL key");
    if (w->depth == 0 || !(w->stack[w->depth - 1] & MCP__JW_OBJ))
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a key outside an object");
    top = &w->stack[w->depth - 1];
    if (*top & MCP__JW_KEY) return mcp__jw_fail(w, MCP_ERR_INVALID, "a key where a value is due");
    before = w->len;
    if (*top & MCP__JW_ITEMS) mcp__jw_put(w, ",", 1);
    *top |= MCP__JW_ITEMS | MCP__JW_KEY;
    if (w->pretty) mcp__jw_indent(w, w->depth);
    mcp__jw_quoted(w, key, len, before);
    if (w->status == MCP_OK) mcp__jw_put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    return w->status;
}

MCPDEF mcp_status mcp_jw_key(mcp_jw *w, const char *key)
{
    return mcp_jw_keyn(w, key, key ? strlen(key) : 0);
}

MCPDEF mcp_status mcp_jw_strn(mcp_jw *w, const char *s, size_t len)
{
    size_t before = w->len;
    if (!s) return mcp_jw_null(w);
    if (!mcp__jw_pre_value(w)) return w->status;
    mcp__jw_quoted(w, s, len, before);
    mcp__jw_post_value(w);
    return w->status;
}

MCPDEF mcp_status mcp_jw_str(mcp_jw *w, const char *s)
{
    return mcp_jw_strn(w, s, s ? strlen(s) : 0);
}

MCPDEF mcp_status mcp_jw_int(mcp_jw *w, int64_t v)
{
    char buf[24];
    if (!mcp__jw_pre_value(w)) return w->status;
    mcp__jw_put(w, buf, (size_t)mcp__i64toa(v, buf));
    mcp__jw_post_value(w);
    return w->status;
}

MCPDEF mcp_status mcp_jw_num(mcp_jw *w, double v)
{
    char buf[40];
    if (w->status != MCP_OK) return w->status;
    if (v != v || v - v != 0)
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a number that is NaN or infinite (JSON has neither)");
    if (!mcp__jw_pre_value(w)) return w->status;
    mcp__jw_put(w, buf, (size_t)mcp__dtoa(v, buf));
    mcp__jw_post_value(w);
    return w->status;
}

MCPDEF mcp_status mcp_jw_bool(mcp_jw *w, int v)
{
    if (!mcp__jw_pre_value(w)) return w->status;
    mcp__jw_put(w, v ? "true" : "false", v ? 4 : 5);
    mcp__jw_post_value(w);
    return w->status;
}

MCPDEF mcp_status mcp_jw_null(mcp_jw *w)
{
    if (!mcp__jw_pre_value(w)) return w->status;
    mcp__jw_put(w, "null", 4);
    mcp__jw_post_value(w);
    return w->status;
}

/* Writes a parsed value, depth-first with an explicit stack (any depth, no recursion). */
MCPDEF mcp_status mcp_jw_value(mcp_jw *w, const mcp_json *v)
{
    typedef struct { const mcp_json *c; size_t i; } pos;
    pos inl[32], *st = inl, *nst;
    size_t sn = 0, scap = 32;
    const mcp_json *x;
    char buf[40];
    if (!v) return mcp_jw_null(w);
    x = v;
    for (;;) {
        if (w->status != MCP_OK) break;
        if (x) {
            switch (x->type) {
            case MCP_JSON_NULL: mcp_jw_null(w); break;
            case MCP_JSON_BOOL: mcp_jw_bool(w, (int)x->u.i); break;
            case MCP_JSON_STRING:
                if (!mcp__jw_pre_value(w)) break;
                if (x->flags & MCP__STR_PLAIN) mcp__jw_plain(w, x->u.s, x->len);
                else mcp__jw_quoted(w, x->u.s, x->len, w->len);
                mcp__jw_post_value(w);
                break;
            case MCP_JSON_NUMBER:
                if (x->flags & MCP__NUM_INT) mcp_jw_int(w, x->u.i);
                else if (mcp__jw_pre_value(w)) {
                    mcp__jw_put(w, buf, (size_t)mcp__dtoa(x->u.d, buf));
                    mcp__jw_post_value(w);
                }
                break;
            default:
                mcp__jw_begin(w, x->type == MCP_JSON_OBJECT);
                if (sn == scap) {
                    nst = (pos *)MCP_MALLOC(2 * scap * sizeof(pos), NULL);
                    if (!nst) { mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory"); break; }
                    memcpy(nst, st, sn * sizeof(pos));
                    if (st != inl) MCP_FREE(st, NULL);
                    st = nst; scap *= 2;
                }
                st[sn].c = x; st[sn].i = 0; sn++;
                break;
            }
        }
        if (!sn) break;
        {   /* next child of the innermost open container, or close it */
            pos *t = &st[sn - 1];
            if (t->i < t->c->len) {
                if (t->c->type == MCP_JSON_OBJECT) {
                    const mcp_json *k = t->c->u.kids + 2 * t->i;
                    if (mcp_jw_keyn(w, k->u.s, k->len) != MCP_OK) break;
                    x = k + 1;
                } else {
                    x = t->c->u.kids + t->i;
                }
                t->i++;
            } else {
                mcp__jw_end(w, t->c->type == MCP_JSON_OBJECT);
                sn--;
                x = NULL;
            }
        }
    }
    if (st != inl) MCP_FREE(st, NULL);
    return w->status;
}

MCPDEF mcp_status mcp_jw_raw(mcp_jw *w, const char *json, size_t len)
{
    mcp_json_doc *doc;
    mcp_error pe;
    if (w->status != MCP_OK) return w->status;
    doc = mcp_json_parse(json, len, &pe);
    if (!doc) return pe.status == MCP_ERR_NOMEM ? mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory")
                                                : mcp__jw_fail(w, MCP_ERR_INVALID, "raw text that is not valid JSON");
    mcp_jw_value(w, mcp_json_root(doc));
    mcp_json_free(doc);
    return w->status;
}


MCPDEF mcp_status mcp_jw_status(const mcp_jw *w, mcp_error *err)
{
    if (w->status != MCP_OK)
        return mcp__fail(err, w->status, "JSON writer error: %s.", w->what ? w->what : "unknown");
    if (!w->done && w->depth)
        return mcp__fail(err, MCP_ERR_INVALID, "JSON writer error: %lu container%s still open.",
                         (unsigned long)w->depth, w->depth == 1 ? " is" : "s are");
    if (!w->done) return mcp__fail(err, MCP_ERR_INVALID, "JSON writer error: nothing was written.");
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF const char *mcp_jw_text(const mcp_jw *w, size_t *len)
{
    if (w->status != MCP_OK || !w->done) { if (len) *len = 0; return NULL; }
    if (len) *len = w->len;
    return w->buf;
}

MCPDEF char *mcp_jw_finish(mcp_jw *w, size_t *len, mcp_error *err)
{
    char *out;
    if (mcp_jw_status(w, err) != MCP_OK || !mcp__jw_room(w, 1)) {
        if (w->status == MCP_ERR_NOMEM) mcp__fail(err, MCP_ERR_NOMEM, "JSON writer error: out of memory.");
        if (len) *len = 0;
        mcp_jw_free(w);
        return NULL;
    }
    w->buf[w->len] = 0;
    out = w->buf;
    if (len) *len = w->len;
    w->buf = NULL; w->len = w->cap = 0;
    mcp_jw_free(w);
    return out;
}

MCPDEF char *mcp_json_dump(const mcp_json *v, int pretty, size_t *len)
{
    mcp_jw w;
    mcp_jw_init(&w, pretty);
    mcp_jw_value(&w, v);
    return mcp_jw_finish(&w, len, NULL);
}

/* ============================================================================================
   >>jsonl
   ============================================================================================ */

static int mcp__blank(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

static mcp_status mcp__jsonl_fail(mcp_jsonl *p, mcp_status st, const char *what)
{
    p->_status = st; p->what = what;
    return st;
}

MCPDEF mcp_status mcp_jsonl_feed(mcp_jsonl *p, const char *data, size_t len, size_t *used)
{
    size_t max = p->max_line ? p->max_line : MCP_JSONL_MAX_LINE, off = 0, seg;
    const char *nl, *line;
    *used = 0;
    if (p->_status < 0) return p->_status;
    if (p->_ready) return MCP_OK;                 /* take the waiting line first */
    if (p->_line == p->_part.data && p->_line) { p->_part.len = 0; p->_line = NULL; }
    while (off < len) {
        nl = (const char *)memchr(data + off, '\n', len - off);
        seg = nl ? (size_t)(nl - (data + off)) : len - off;
        /* max + 1: a CR may precede the LF */
        if (p->_part.len + seg > max && p->_part.len + seg - 1 > max) {
            *used = off;
            return mcp__jsonl_fail(p, MCP_ERR_LIMIT, "a line is longer than the limit");
        }
        if (!nl) {
            if (mcp_buf_append(&p->_part, data + off, seg) != MCP_OK) {
                *used = off;
                return mcp__jsonl_fail(p, MCP_ERR_NOMEM, "out of memory");
            }
            off = len;
            break;
        }
        if (p->_part.len) {
            if (mcp_buf_append(&p->_part, data + off, seg) != MCP_OK) {
                *used = off;
                return mcp__jsonl_fail(p, MCP_ERR_NOMEM, "out of memory");
            }
            line = p->_part.data; seg = p->_part.len;
        } else {
            line = data + off;
        }
        off = (size_t)(nl - data) + 1;
        if (seg && line[seg - 1] == '\r') seg--;
        if (seg > max) { *used = off; return mcp__jsonl_fail(p, MCP_ERR_LIMIT, "a line is longer than the limit"); }
        if (mcp__blank(line, seg)) { p->_part.len = 0; continue; }
        p->_line = line; p->_len = seg; p->_ready = 1;
        *used = off;
        return MCP_OK;
    }
    *used = off;
    return MCP_AGAIN;
}

MCPDEF mcp_status mcp_jsonl_next(mcp_jsonl *p, const char **line, size_t *len)
{
    if (!p->_ready) { *line = NULL; *len = 0; return p->_status < 0 ? p->_status : MCP_AGAIN; }
    *line = p->_line; *len = p->_len;
    p->_ready = 0;
    /* a line in the carried buffer stays readable until the next feed empties it */
    if (p->_line != p->_part.data) p->_line = NULL;
    return MCP_OK;
}

#ifndef MCP_NO_STDIO
/* Is a line half-read (carried to the next feed)? */
static int mcp__jsonl_pending(const mcp_jsonl *p) { return p->_part.len != 0; }
#endif

MCPDEF mcp_status mcp_jsonl_finish(mcp_jsonl *p, const char **rest, size_t *len)
{
    if (rest) *rest = NULL;
    if (len) *len = 0;
    if (p->_status < 0) return p->_status;
    if (p->_line == p->_part.data && p->_line && !p->_ready) { p->_part.len = 0; p->_line = NULL; }
    if (p->_ready || !p->_part.len || mcp__blank(p->_part.data, p->_part.len)) return MCP_OK;
    if (rest) *rest = p->_part.data;
    if (len) *len = p->_part.len;
    return mcp__jsonl_fail(p, MCP_ERR_PARSE, "the stream ended in the middle of a line");
}

MCPDEF void mcp_jsonl_reset(mcp_jsonl *p)
{
    p->_part.len = 0; p->_line = NULL; p->_len = 0; p->_ready = 0;
    p->_status = MCP_OK; p->what = NULL;
}

MCPDEF void mcp_jsonl_free(mcp_jsonl *p)
{
    if (!p) return;
    mcp_buf_free(&p->_part);
    mcp_jsonl_reset(p);
}

#ifndef MCP_NO_HTTP
/* ============================================================================================
   >>http
   ============================================================================================ */

static int mcp__lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int mcp__ieq(const char *a, size_t an, const char *b)   /* a[0..an) == b, ignoring case */
{
    size_t i;
    for (i = 0; i < an; i++)
        if (!b[i] || mcp__lower((unsigned char)a[i]) != mcp__lower((unsigned char)b[i])) return 0;
    return b[an] == 0;
}

/* RFC 9110 tchar */
static int mcp__tchar(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* field-value characters: VCHAR, obs-text, SP, HTAB */
static int mcp__vchar(int c) { return c == '\t' || (c >= 0x20 && c != 0x7F); }

static int mcp__hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = mcp__lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* ---- URL ------------------------------------------------------------------------------------ */

/* RFC 3986 characters allowed in a path or query (pct-encoding checked separately) */
static int mcp__url_pchar(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("-._~!$&'()*+,;=:@/?%", c) != NULL);
}

static int mcp__prefix_ci(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (mcp__lower((unsigned char)*s) != *prefix) return 0;
    return 1;
}

static mcp_status mcp__url_bad(mcp_error *err, const char *url, const char *why)
{
    return mcp__fail(err, MCP_ERR_INVALID, "Invalid URL \"%.200s\": %s.", url, why);
}

MCPDEF mcp_status mcp_http_url_parse(mcp_http_url *u, const char *url, mcp_error *err)
{
    const char *p, *host, *hend, *t, *tend;
    size_t hlen, tlen;
    unsigned long port = 0;
    memset(u, 0, sizeof *u);
    if (!url) return mcp__fail(err, MCP_ERR_INVALID, "Invalid URL: it is NULL.");
    if (mcp__prefix_ci(url, "http://")) p = url + 7;
    else if (mcp__prefix_ci(url, "https://")) { p = url + 8; u->https = 1; }
    else return mcp__url_bad(err, url, "only http:// and https:// URLs are supported");
    host = p;
    if (*p == '[') {
        host = ++p;
        while (*p && *p != ']') {
            if (mcp__hexval((unsigned char)*p) < 0 && *p != ':' && *p != '.')
                return mcp__url_bad(err, url, "the IPv6 address in brackets has a character that is not a hex digit, ':' or '.'");
            p++;
        }
        if (*p != ']') return mcp__url_bad(err, url, "the IPv6 address has no closing ']'");
        hend = p++;
        if (hend == host) return mcp__url_bad(err, url, "the IPv6 address in brackets is empty");
        u->ipv6 = 1;
    } else {
        while (*p && *p != ':' && *p != '/' && *p != '?' && *p != '#') {
            unsigned char c = (unsigned char)*p;
            if (c == '@') return mcp__url_bad(err, url, "user names and passwords in URLs are not supported; send credentials in a header");
            if (c <= 0x20 || c >= 0x7F) return mcp__url_bad(err, url, "the host has a space, a control character or a non-ASCII byte");
            if (!mcp__url_pchar(c) || c == '%') return mcp__url_bad(err, url, "the host has a character that is not allowed");
            p++;
        }
        hend = p;
        if (hend == host) return mcp__url_bad(err, url, "the host is missing");
    }
    if (*p == ':') {
        p++;
        if (*p >= '0' && *p <= '9') {
            while (*p >= '0' && *p <= '9') { port = port * 10 + (unsigned long)(*p - '0'); if (port > 65535) break; p++; }
            if (port == 0 || port > 65535) return mcp__url_bad(err, url, "the port must be a number from 1 to 65535");
            u->port_given = 1;
        }
    }
    if (*p && *p != '/' && *p != '?' && *p != '#') {
        if (strchr(url, '@')) return mcp__url_bad(err, url, "user names and passwords in URLs are not supported; send credentials in a header");
        return mcp__url_bad(err, url, "the port must be a number from 1 to 65535");
    }
    for (tend = strchr(p, '#') ? strchr(p, '#') + 1 : p + strlen(p); *tend; tend++)
        if ((unsigned char)*tend <= 0x20 || (unsigned char)*tend >= 0x7F)
            return mcp__url_bad(err, url, "the fragment has a space, a control character or a non-ASCII byte");
    t = p;
    for (tend = t; *tend && *tend != '#'; tend++) {
        unsigned char c = (unsigned char)*tend;
        if (c <= 0x20 || c >= 0x7F) return mcp__url_bad(err, url, "it has a space, a control character or a non-ASCII byte; percent-encode it");
        if (!mcp__url_pchar(c)) return mcp__url_bad(err, url, "the path or query has a character that must be percent-encoded");
        if (c == '%' && (mcp__hexval((unsigned char)tend[1]) < 0 || mcp__hexval((unsigned char)tend[2]) < 0))
            return mcp__url_bad(err, url, "a '%' is not followed by two hex digits");
    }
    hlen = (size_t)(hend - host); tlen = (size_t)(tend - t);
    if (hlen > 253) return mcp__url_bad(err, url, "the host name is longer than 253 characters");
    u->_mem = (char *)MCP_MALLOC(hlen + tlen + 3, NULL);
    if (!u->_mem) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory parsing a URL.");
    u->host = u->_mem;
    memcpy(u->host, host, hlen); u->host[hlen] = 0;
    u->target = u->_mem + hlen + 1;
    if (tlen && *t == '/') { memcpy(u->target, t, tlen); u->target[tlen] = 0; }
    else { u->target[0] = '/'; memcpy(u->target + 1, t, tlen); u->target[tlen + 1] = 0; }  /* "?q" -> "/?q" */
    u->port = u->port_given ? (unsigned)port : u->https ? 443u : 80u;
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF void mcp_http_url_free(mcp_http_url *u)
{
    if (!u) return;
    MCP_FREE(u->_mem, NULL);
    memset(u, 0, sizeof *u);
}

/* ---- request writer ------------------------------------------------------------------------- */

/* Checks one "Name: value" line; returns its name length, or 0 with err filled. */
static size_t mcp__check_header(const char *h, mcp_error *err)
{
    size_t n = 0;
    const char *v;
    while (mcp__tchar((unsigned char)h[n])) n++;
    if (n == 0 || h[n] != ':') {
        mcp__fail(err, MCP_ERR_INVALID, "The HTTP header \"%.100s\" is not of the form \"Name: value\" "
                  "with a name made of letters, digits and !#$%%&'*+-.^_`|~.", h);
        return 0;
    }
    for (v = h + n + 1; *v; v++)
        if (!mcp__vchar((unsigned char)*v)) {
            mcp__fail(err, MCP_ERR_INVALID, "The value of the HTTP header \"%.*s\" contains a %s; "
                      "CR, LF and other control characters are not allowed in header values.",
                      (int)n, h, *v == '\r' ? "carriage return" : *v == '\n' ? "line feed" : "control character");
            return 0;
        }
    if (mcp__ieq(h, n, "content-length") || mcp__ieq(h, n, "transfer-encoding")) {
        mcp__fail(err, MCP_ERR_INVALID, "The HTTP header \"%.*s\" is set by mcp.h itself; leave it out.", (int)n, h);
        return 0;
    }
    return n;
}

MCPDEF mcp_status mcp_http_write_request(mcp_buf *out, const char *method, const mcp_http_url *u,
                                         const char *const *headers, const char *const *headers2,
                                         const char *body, size_t body_len, mcp_error *err)
{
    const char *const *lists[2];
    const char *const *h;
    size_t start = out->len, n;
    int i, has_host = 0, ok = 1;
    char num[64];
    lists[0] = headers; lists[1] = headers2;
    if (!method || !*method || !u || !u->host)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_http_write_request needs a method and a parsed URL.");
    for (n = 0; method[n]; n++)
        if (!mcp__tchar((unsigned char)method[n]))
            return mcp__fail(err, MCP_ERR_INVALID, "The HTTP method \"%.40s\" is not a token.", method);
    for (i = 0; i < 2; i++)
        for (h = lists[i]; h && *h; h++) {
            if (!(n = mcp__check_header(*h, err))) return MCP_ERR_INVALID;
            if (mcp__ieq(*h, n, "host")) has_host = 1;
        }
    ok &= mcp_buf_append(out, method, strlen(method)) == MCP_OK;
    ok &= mcp_buf_append(out, " ", 1) == MCP_OK;
    ok &= mcp_buf_append(out, u->target, strlen(u->target)) == MCP_OK;
    ok &= mcp_buf_append(out, " HTTP/1.1\r\n", 11) == MCP_OK;
    if (!has_host) {
        ok &= mcp_buf_append(out, "Host: ", 6) == MCP_OK;
        if (u->ipv6) ok &= mcp_buf_append(out, "[", 1) == MCP_OK;
        ok &= mcp_buf_append(out, u->host, strlen(u->host)) == MCP_OK;
        if (u->ipv6) ok &= mcp_buf_append(out, "]", 1) == MCP_OK;
        if (u->port != (u->https ? 443u : 80u)) {
            ok &= mcp_buf_append(out, num, (size_t)snprintf(num, sizeof num, ":%u", u->port)) == MCP_OK;
        }
        ok &= mcp_buf_append(out, "\r\n", 2) == MCP_OK;
    }
    for (i = 0; i < 2; i++)
        for (h = lists[i]; h && *h; h++) {
            ok &= mcp_buf_append(out, *h, strlen(*h)) == MCP_OK;
            ok &= mcp_buf_append(out, "\r\n", 2) == MCP_OK;
        }
    if (body_len || !strcmp(method, "POST") || !strcmp(method, "PUT")) {
        ok &= mcp_buf_append(out, num, (size_t)snprintf(num, sizeof num, "Content-Length: %lu\r\n",
                                                       (unsigned long)body_len)) == MCP_OK;
    }
    ok &= mcp_buf_append(out, "\r\n", 2) == MCP_OK;
    if (body_len) ok &= mcp_buf_append(out, body, body_len) == MCP_OK;
    if (!ok) { out->len = start; return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory writing an HTTP request."); }
    mcp__ok(err);
    return MCP_OK;
}

/* ---- response parser ------------------------------------------------------------------------- */

enum {
    MCP__H_HEAD = 0, MCP__H_LENGTH, MCP__H_CLOSE, MCP__H_CSIZE, MCP__H_CEXT, MCP__H_CSIZE_LF,
    MCP__H_CDATA, MCP__H_CDATA_CR, MCP__H_CDATA_LF, MCP__H_TRAILER, MCP__H_TRAILER_LINE,
    MCP__H_TRAILER_LF, MCP__H_END_LF, MCP__H_DONE
};

static mcp_status mcp__http_fail(mcp_http_resp *r, mcp_status st, const char *what)
{
    r->_status = st; r->what = what;
    return st;
}

/* Walks a comma-separated header list: returns the next element (trimmed) or NULL. */
static const char *mcp__list_next(const char **s, size_t *n)
{
    const char *p = *s, *b, *e;
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    if (!*p) return NULL;
    b = p;
    while (*p && *p != ',') p++;
    e = p;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *s = p; *n = (size_t)(e - b);
    return b;
}

/* Splits the head in place (NULs at the ends of names, values, reason). */
static mcp_status mcp__http_parse_head(mcp_http_resp *r)
{
    char *p = r->_head.data, *end = p + r->_head.len, *line, *eol, *q, *v, *ve;
    size_t maxh = r->max_headers ? r->max_headers : MCP_HTTP_MAX_HEADERS;
    r->_nhdrs = 0;
    for (line = p; line < end; line = eol + 1) {
        eol = (char *)memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        q = eol > line && eol[-1] == '\r' ? eol - 1 : eol;   /* q: end of the line's content */
        if (memchr(line, '\r', (size_t)(q - line)))
            return mcp__http_fail(r, MCP_ERR_PARSE, "the response has a carriage return that does not end a line");
        *q = 0;
        if (line == p) {                                     /* status line */
            if (q - line < 12 || memcmp(line, "HTTP/1.", 7) || line[7] < '0' || line[7] > '9' || line[8] != ' ')
                return mcp__http_fail(r, MCP_ERR_PARSE, "the response does not start with an HTTP/1.x status line");
            if (line[9] < '1' || line[9] > '5' || line[10] < '0' || line[10] > '9' ||
                line[11] < '0' || line[11] > '9' || (q - line > 12 && line[12] != ' '))
                return mcp__http_fail(r, MCP_ERR_PARSE, "the status code is not three digits from 100 to 599");
            r->version = line[7] == '0' ? 10 : 11;
            r->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
            r->reason = q - line > 12 ? line + 13 : q;
            for (v = (char *)r->reason; v < q; v++)
                if (!mcp__vchar((unsigned char)*v))
                    return mcp__http_fail(r, MCP_ERR_PARSE, "the reason phrase has a control character");
            continue;
        }
        if (q == line) break;                                /* the blank line */
        if (*line == ' ' || *line == '\t')
            return mcp__http_fail(r, MCP_ERR_PARSE, "the response uses obsolete header line folding");
        for (v = line; v < q && mcp__tchar((unsigned char)*v); v++) {}
        if (v == line || v == q || *v != ':')
            return mcp__http_fail(r, MCP_ERR_PARSE, (v < q && (*v == ' ' || *v == '\t'))
                                  ? "a header name is followed by whitespace before the colon"
                                  : "a header line has no name or a name with a character that is not allowed");
        *v++ = 0;
        while (v < q && (*v == ' ' || *v == '\t')) v++;
        for (ve = q; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--) {}
        for (q = v; q < ve; q++)
            if (!mcp__vchar((unsigned char)*q))
                return mcp__http_fail(r, MCP_ERR_PARSE, "a header value has a control character");
        *ve = 0;
        if (r->_nhdrs >= maxh)
            return mcp__http_fail(r, MCP_ERR_LIMIT, "the response has more headers than the limit");
        if (r->_nhdrs == r->_hdrcap &&
            !mcp__grow((void **)&r->_hdrs, &r->_hdrcap, sizeof *r->_hdrs, r->_nhdrs + 1, NULL, NULL))
            return mcp__http_fail(r, MCP_ERR_NOMEM, "out of memory");
        r->_hdrs[r->_nhdrs].name = line;
        r->_hdrs[r->_nhdrs].value = v;
        r->_nhdrs++;
    }
    return MCP_OK;
}

/* After the head: how the body is framed and whether the connection can be reused. */
static mcp_status mcp__http_framing(mcp_http_resp *r)
{
    size_t i, n;
    const char *s, *e, *last = NULL;
    size_t last_n = 0;
    int te = 0, cl = 0, conn_close = 0, keep = 0, chunked_seen = 0;
    uint64_t len = 0, v;
    for (i = 0; i < r->_nhdrs; i++) {
        const char *name = r->_hdrs[i].name;
        s = r->_hdrs[i].value;
        if (mcp__ieq(name, strlen(name), "transfer-encoding")) {
            te = 1;
            while ((e = mcp__list_next(&s, &n)) != NULL) {
                if (chunked_seen) return mcp__http_fail(r, MCP_ERR_PARSE, "a transfer coding follows chunked");
                if (mcp__ieq(e, n, "chunked")) chunked_seen = 1;
                last = e; last_n = n;
            }
        } else if (mcp__ieq(name, strlen(name), "content-length")) {
            while ((e = mcp__list_next(&s, &n)) != NULL) {
                for (v = 0; n; n--, e++) {
                    if (*e < '0' || *e > '9' || v > (UINT64_MAX - 9) / 10)
                        return mcp__http_fail(r, MCP_ERR_PARSE, "Content-Length is not a valid number");
                    v = v * 10 + (uint64_t)(*e - '0');
                }
                if (cl && v != len)
                    return mcp__http_fail(r, MCP_ERR_PARSE, "the response has conflicting Content-Length values");
                cl = 1; len = v;
            }
            if (!cl) return mcp__http_fail(r, MCP_ERR_PARSE, "Content-Length is empty");
        } else if (mcp__ieq(name, strlen(name), "connection")) {
            while ((e = mcp__list_next(&s, &n)) != NULL) {
                if (mcp__ieq(e, n, "close")) conn_close = 1;
                else if (mcp__ieq(e, n, "keep-alive")) keep = 1;
            }
        }
    }
    r->keep_alive = !conn_close && (r->version >= 11 || keep);
    if (r->head_request || r->status == 204 || r->status == 304 || r->status < 200) {
        r->framing = MCP_HTTP_NO_BODY;
        if (r->status == 101) r->keep_alive = 0;
    } else if (te) {
        if (last && mcp__ieq(last, last_n, "chunked")) r->framing = MCP_HTTP_CHUNKED;
        else { r->framing = MCP_HTTP_UNTIL_CLOSE; r->keep_alive = 0; }
        if (cl || r->version < 11) r->keep_alive = 0;   /* smuggling-shaped: never reuse */
    } else if (cl) {
        r->framing = len ? MCP_HTTP_LENGTH : MCP_HTTP_NO_BODY;
        r->content_length = len;
    } else {
        r->framing = MCP_HTTP_UNTIL_CLOSE;
        r->keep_alive = 0;
    }
    return MCP_OK;
}

static void mcp__http_event(mcp_http_resp *r, mcp_http_ev type, const char *data, size_t len)
{
    r->_ev.type = type; r->_ev.data = data; r->_ev.len = len; r->_has_ev = 1;
    if (type == MCP_HTTP_END) r->_state = MCP__H_DONE;
}

/* Head bytes: collect lines until the blank one; then parse, skip 1xx, choose framing. */
static mcp_status mcp__http_head(mcp_http_resp *r, const char *data, size_t len, size_t *off)
{
    size_t max = r->max_head ? r->max_head : MCP_HTTP_MAX_HEAD, seg, ll;
    const char *nl;
    mcp_status st;
    while (*off < len) {
        nl = (const char *)memchr(data + *off, '\n', len - *off);
        seg = nl ? (size_t)(nl - (data + *off)) + 1 : len - *off;
        if (r->_head.len + seg > max)
            return mcp__http_fail(r, MCP_ERR_LIMIT, "the response head is larger than the limit");
        if (mcp_buf_append(&r->_head, data + *off, seg) != MCP_OK)
            return mcp__http_fail(r, MCP_ERR_NOMEM, "out of memory");
        *off += seg;
        r->_got_any = 1;
        if (!nl) return MCP_AGAIN;
        ll = r->_head.len - r->_line_start;                 /* this line with its LF */
        if (ll > 2 || (ll == 2 && r->_head.data[r->_line_start] != '\r')) {
            r->_line_start = r->_head.len;
            continue;
        }
        if (r->_line_start == 0) { r->_head.len = 0; continue; }   /* blank lines before it */
        r->_line_start = 0;
        if ((st = mcp__http_parse_head(r)) != MCP_OK) return st;
        if (r->status >= 100 && r->status < 200 && r->status != 101) {   /* interim: skip */
            r->_head.len = 0; r->_nhdrs = 0;
            continue;
        }
        if ((st = mcp__http_framing(r)) != MCP_OK) return st;
        mcp__http_event(r, MCP_HTTP_HEAD, NULL, 0);
        switch (r->framing) {
        case MCP_HTTP_NO_BODY: r->_end_pending = 1; r->_state = MCP__H_DONE; break;
        case MCP_HTTP_LENGTH: r->_state = MCP__H_LENGTH; r->_left = r->content_length; break;
        case MCP_HTTP_CHUNKED: r->_state = MCP__H_CSIZE; r->_left = 0; r->_digits = 0; break;
        case MCP_HTTP_UNTIL_CLOSE: r->_state = MCP__H_CLOSE; break;
        }
        return MCP_OK;
    }
    return MCP_AGAIN;
}

/* One step of the chunked decoder on the byte c (everything but chunk data). */
static mcp_status mcp__http_chunk_byte(mcp_http_resp *r, int c)
{
    int h;
    size_t max = r->max_head ? r->max_head : MCP_HTTP_MAX_HEAD;
    switch (r->_state) {
    case MCP__H_CSIZE:
        if ((h = mcp__hexval(c)) >= 0) {
            if (r->_left >> 56) return mcp__http_fail(r, MCP_ERR_PARSE, "a chunk size is too large");
            r->_left = r->_left * 16 + (uint64_t)h; r->_digits++;
            return MCP_OK;
        }
        if (!r->_digits) return mcp__http_fail(r, MCP_ERR_PARSE, "a chunk size is not a hexadecimal number");
        if (c == ';' || c == ' ' || c == '\t') { r->_state = MCP__H_CEXT; r->_ext_bytes = 0; return MCP_OK; }
        if (c == '\r') { r->_state = MCP__H_CSIZE_LF; return MCP_OK; }
        if (c == '\n') break;
        return mcp__http_fail(r, MCP_ERR_PARSE, "a chunk size is not a hexadecimal number");
    case MCP__H_CEXT:
        if (c == '\r') { r->_state = MCP__H_CSIZE_LF; return MCP_OK; }
        if (c == '\n') break;
        if (++r->_ext_bytes > 4096) return mcp__http_fail(r, MCP_ERR_LIMIT, "a chunk extension is longer than 4096 bytes");
        if (c != '\t' && (c < 0x20 || c == 0x7F))
            return mcp__http_fail(r, MCP_ERR_PARSE, "a chunk extension has a control character");
        return MCP_OK;
    case MCP__H_CSIZE_LF:
        if (c == '\n') break;
        return mcp__http_fail(r, MCP_ERR_PARSE, "a chunk size line has a CR without LF");
    case MCP__H_CDATA_CR:
        if (c == '\r') { r->_state = MCP__H_CDATA_LF; return MCP_OK; }
        if (c == '\n') { r->_state = MCP__H_CSIZE; r->_left = 0; r->_digits = 0; return MCP_OK; }
        return mcp__http_fail(r, MCP_ERR_PARSE, "chunk data is longer than its chunk size");
    case MCP__H_CDATA_LF:
        if (c == '\n') { r->_state = MCP__H_CSIZE; r->_left = 0; r->_digits = 0; return MCP_OK; }
        return mcp__http_fail(r, MCP_ERR_PARSE, "chunk data is not followed by CRLF");
    case MCP__H_TRAILER:
        if (c == '\r') { r->_state = MCP__H_END_LF; return MCP_OK; }
        if (c == '\n') { mcp__http_event(r, MCP_HTTP_END, NULL, 0); return MCP_OK; }
        r->_state = MCP__H_TRAILER_LINE;
        /* fall through */
    case MCP__H_TRAILER_LINE:
        if (++r->_trailer_bytes > max) return mcp__http_fail(r, MCP_ERR_LIMIT, "the trailers are larger than the head limit");
        if (c == '\r') r->_state = MCP__H_TRAILER_LF;
        else if (c == '\n') r->_state = MCP__H_TRAILER;
        else if (c != '\t' && (c < 0x20 || c == 0x7F))
            return mcp__http_fail(r, MCP_ERR_PARSE, "a trailer has a control character");
        return MCP_OK;
    case MCP__H_TRAILER_LF:
        if (c == '\n') { r->_state = MCP__H_TRAILER; return MCP_OK; }
        return mcp__http_fail(r, MCP_ERR_PARSE, "a trailer line has a CR without LF");
    case MCP__H_END_LF:
        if (c == '\n') { mcp__http_event(r, MCP_HTTP_END, NULL, 0); return MCP_OK; }
        return mcp__http_fail(r, MCP_ERR_PARSE, "the chunked body does not end with CRLF");
    }
    /* the chunk size line is complete */
    if (r->_left == 0) { r->_state = MCP__H_TRAILER; r->_trailer_bytes = 0; }
    else r->_state = MCP__H_CDATA;
    return MCP_OK;
}

MCPDEF mcp_status mcp_http_resp_feed(mcp_http_resp *r, const char *data, size_t len, size_t *used)
{
    size_t off = 0, n;
    mcp_status st;
    *used = 0;
    if (r->_status < 0) return r->_status;
    if (r->_has_ev || r->_end_pending) return MCP_OK;
    while (off < len && !r->_has_ev) {
        switch (r->_state) {
        case MCP__H_HEAD:
            st = mcp__http_head(r, data, len, &off);
            if (st < 0) { *used = off; return st; }
            break;
        case MCP__H_LENGTH:
            n = len - off < r->_left ? len - off : (size_t)r->_left;
            mcp__http_event(r, MCP_HTTP_BODY, data + off, n);
            off += n; r->_left -= n;
            if (!r->_left) { r->_end_pending = 1; r->_state = MCP__H_DONE; }
            break;
        case MCP__H_CLOSE:
            mcp__http_event(r, MCP_HTTP_BODY, data + off, len - off);
            off = len;
            break;
        case MCP__H_CDATA:
            n = len - off < r->_left ? len - off : (size_t)r->_left;
            mcp__http_event(r, MCP_HTTP_BODY, data + off, n);
            off += n; r->_left -= n;
            if (!r->_left) r->_state = MCP__H_CDATA_CR;
            break;
        case MCP__H_DONE:
            *used = off;
            return MCP_AGAIN;      /* bytes beyond the response are not ours */
        default:
            st = mcp__http_chunk_byte(r, (unsigned char)data[off++]);
            if (st < 0) { *used = off; return st; }
            break;
        }
    }
    *used = off;
    return r->_has_ev || r->_end_pending ? MCP_OK : MCP_AGAIN;
}

MCPDEF mcp_status mcp_http_resp_next(mcp_http_resp *r, mcp_http_event *ev)
{
    if (r->_has_ev) { *ev = r->_ev; r->_has_ev = 0; return MCP_OK; }
    if (r->_end_pending) {
        r->_end_pending = 0;
        ev->type = MCP_HTTP_END; ev->data = NULL; ev->len = 0;
        r->_state = MCP__H_DONE;
        return MCP_OK;
    }
    ev->type = (mcp_http_ev)0; ev->data = NULL; ev->len = 0;
    return r->_status < 0 ? r->_status : MCP_AGAIN;
}

MCPDEF mcp_status mcp_http_resp_finish(mcp_http_resp *r)
{
    if (r->_status < 0) return r->_status;
    switch (r->_state) {
    case MCP__H_DONE: return MCP_OK;
    case MCP__H_CLOSE:
        if (!r->_has_ev) mcp__http_event(r, MCP_HTTP_END, NULL, 0);
        else r->_end_pending = 1;
        r->_state = MCP__H_DONE;
        return MCP_OK;
    case MCP__H_HEAD:
        if (!r->_got_any) return mcp__http_fail(r, MCP_ERR_CLOSED, "the connection closed before a response arrived");
        return mcp__http_fail(r, MCP_ERR_PARSE, "the connection closed in the middle of the response head");
    case MCP__H_LENGTH:
        return mcp__http_fail(r, MCP_ERR_PARSE, "the connection closed before the whole Content-Length body arrived");
    default:
        return mcp__http_fail(r, MCP_ERR_PARSE, "the connection closed before the last chunk of a chunked body");
    }
}

MCPDEF const char *mcp_http_resp_header(const mcp_http_resp *r, const char *name, size_t nth)
{
    size_t i, n = strlen(name);
    for (i = 0; i < r->_nhdrs; i++)
        if (mcp__ieq(name, n, r->_hdrs[i].name) && nth-- == 0) return r->_hdrs[i].value;
    return NULL;
}

MCPDEF size_t mcp_http_resp_header_count(const mcp_http_resp *r) { return r->_nhdrs; }

MCPDEF const char *mcp_http_resp_header_at(const mcp_http_resp *r, size_t i, const char **value)
{
    if (i >= r->_nhdrs) { if (value) *value = NULL; return NULL; }
    if (value) *value = r->_hdrs[i].value;
    return r->_hdrs[i].name;
}

MCPDEF void mcp_http_resp_reset(mcp_http_resp *r)
{
    r->status = 0; r->version = 0; r->reason = NULL; r->framing = MCP_HTTP_NO_BODY;
    r->content_length = 0; r->keep_alive = 0; r->what = NULL;
    r->_head.len = 0; r->_nhdrs = 0; r->_line_start = 0; r->_trailer_bytes = 0; r->_ext_bytes = 0;
    r->_left = 0; r->_state = MCP__H_HEAD; r->_digits = 0; r->_has_ev = 0; r->_end_pending = 0;
    r->_got_any = 0; r->_status = MCP_OK;
}

MCPDEF void mcp_http_resp_free(mcp_http_resp *r)
{
    if (!r) return;
    mcp_buf_free(&r->_head);
    MCP_FREE(r->_hdrs, NULL);
    r->_hdrs = NULL; r->_hdrcap = 0;
    mcp_http_resp_reset(r);
}

#ifndef MCP_NO_AUTH
/* ---- WWW-Authenticate ----------------------------------------------------------------------
   One state machine, a byte at a time (c == -1: the end of the field value). A word read at
   the start of a list element is a scheme or a parameter name: what follows it decides (an
   '=' makes it a name), so a scheme is given when the next word begins, without taking that
   byte. The word right after a scheme may instead be a token68 ("abc==" before a comma or
   the end).

       LIST --tchar--> WORD --'='--> VAL --'"'--> QUOTED <--> QPAIR
                        |  \--SP--> WORD_WS        \--tchar--> TOKVAL
                        |          (a next word: the first was a scheme -> PSTART)
                        \--',' / end: scheme (-> LIST) or token68 (-> AFTER)
       VAL --'='--> T68EQ (a token68 with trailing '='); an item given -> AFTER --','--> LIST */
enum {
    MCP__WA_LIST = 0, MCP__WA_PSTART, MCP__WA_WORD, MCP__WA_WORD_WS, MCP__WA_VAL,
    MCP__WA_QUOTED, MCP__WA_QPAIR, MCP__WA_TOKVAL, MCP__WA_T68EQ, MCP__WA_AFTER
};

static mcp_status mcp__wa_fail(mcp_http_wwwauth *p, mcp_status st, const char *what)
{
    p->_status = st; p->what = what;
    return st;
}

/* RFC 9110 token68 characters (without the trailing '=') */
static int mcp__t68char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("-._~+/", c) != NULL);
}

/* The error for a byte that cannot stand where a name, a value or a separator must. */
static mcp_status mcp__wa_stray(mcp_http_wwwauth *p, int c)
{
    if (c == '"') return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has a quoted string where an auth-scheme, a parameter name or a token68 must be.");
    if (c == '=') return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has an '=' with no parameter name before it.");
    if (!mcp__vchar(c)) return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has a control character outside a quoted string.");
    return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has a character that is not allowed outside a quoted string in an auth-scheme, a parameter name or a token68.");
}

static mcp_status mcp__wa_put(mcp_http_wwwauth *p, int c)
{
    size_t max = p->max_item ? p->max_item : MCP_HTTP_WWWAUTH_MAX_ITEM;
    char ch = (char)c;
    if (p->_buf.len - (size_t)p->_sep >= max)
        return mcp__wa_fail(p, MCP_ERR_LIMIT, "An item of the WWW-Authenticate header (an auth-scheme, a parameter or a token68) is longer than the limit.");
    if (mcp_buf_append(&p->_buf, &ch, 1) != MCP_OK)
        return mcp__wa_fail(p, MCP_ERR_NOMEM, "Out of memory reading the WWW-Authenticate header.");
    return MCP_OK;
}

/* Gives the buffered item: the name is [0, _name_len) when _sep, else the whole buffer. */
static mcp_status mcp__wa_emit(mcp_http_wwwauth *p, mcp_http_wwwauth_kind kind, int next_state)
{
    size_t max = p->max_items ? p->max_items : MCP_HTTP_WWWAUTH_MAX_ITEMS;
    mcp_http_wwwauth_item *it = &p->_item;
    if (++p->_items > max)
        return mcp__wa_fail(p, MCP_ERR_LIMIT, "The WWW-Authenticate header has more items (auth-schemes, parameters and token68s) than the limit.");
    if (mcp_buf_append(&p->_buf, "", 1) != MCP_OK)
        return mcp__wa_fail(p, MCP_ERR_NOMEM, "Out of memory reading the WWW-Authenticate header.");
    it->kind = kind; it->name = NULL; it->name_len = 0;
    it->value = p->_buf.data; it->value_len = p->_buf.len - 1;
    if (kind == MCP_WWWAUTH_SCHEME) {
        it->name = it->value; it->name_len = it->value_len; it->value = NULL; it->value_len = 0;
        p->_open = 1; p->_t68 = 0;
    } else if (kind == MCP_WWWAUTH_PARAM) {
        it->name = p->_buf.data; it->name_len = p->_name_len;
        it->value = p->_buf.data + p->_name_len + 1; it->value_len = p->_buf.len - p->_name_len - 2;
    } else {
        p->_t68 = 1;
    }
    p->_state = next_state; p->_ready = 1;
    return MCP_OK;
}

/* The word ended at a comma or the end: a scheme without parameters, or a token68. */
static mcp_status mcp__wa_word_end(mcp_http_wwwauth *p)
{
    if (!p->_after_scheme) return mcp__wa_emit(p, MCP_WWWAUTH_SCHEME, MCP__WA_LIST);
    if (!p->_word_t68)
        return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has a word after an auth-scheme that is neither a token68 nor a name=value parameter.");
    return mcp__wa_emit(p, MCP_WWWAUTH_TOKEN68, MCP__WA_AFTER);
}

/* "name=" turned out to be the start of a token68 ("abc=" before a comma or another '='). */
static int mcp__wa_is_t68(const mcp_http_wwwauth *p)
{
    return p->_after_scheme && p->_word_t68 && p->_eq_tight;
}

static mcp_status mcp__wa_to_t68(mcp_http_wwwauth *p)
{
    p->_buf.len--; p->_sep = 0;                       /* drop the name's NUL */
    return mcp__wa_put(p, '=');
}

/* A value begins: the word before the '=' is a parameter name of the open challenge. */
static mcp_status mcp__wa_param_start(mcp_http_wwwauth *p)
{
    if (!p->_open) return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has a parameter before any auth-scheme.");
    if (p->_t68) return mcp__wa_fail(p, MCP_ERR_PARSE, "A challenge in the WWW-Authenticate header has both a token68 and parameters.");
    if (memchr(p->_buf.data, '/', p->_name_len))
        return mcp__wa_fail(p, MCP_ERR_PARSE, "A parameter name in the WWW-Authenticate header has a '/' in it.");
    return MCP_OK;
}

static mcp_status mcp__wa_word_start(mcp_http_wwwauth *p, int c, int after_scheme)
{
    p->_buf.len = 0; p->_sep = 0;
    p->_after_scheme = after_scheme; p->_word_t68 = mcp__t68char(c);
    p->_state = MCP__WA_WORD;
    return mcp__wa_put(p, c);
}

/* Between list elements (LIST), or after a scheme and its whitespace (PSTART). */
static mcp_status mcp__wa_between(mcp_http_wwwauth *p, int c, int *took)
{
    *took = 1;
    if (c == -1 || c == ' ' || c == '\t') return MCP_AGAIN;
    if (c == ',') { p->_state = MCP__WA_LIST; return MCP_AGAIN; }
    if (mcp__tchar(c) || (c == '/' && p->_state == MCP__WA_PSTART)) {
        mcp_status st = mcp__wa_word_start(p, c, p->_state == MCP__WA_PSTART);
        return st < 0 ? st : MCP_AGAIN;
    }
    *took = 0;
    return mcp__wa_stray(p, c);
}

/* In a word (WORD) or in the whitespace after it (WORD_WS). */
static mcp_status mcp__wa_word(mcp_http_wwwauth *p, int c, int *took)
{
    mcp_status st = MCP_OK;
    *took = 1;
    if (p->_state == MCP__WA_WORD && (mcp__tchar(c) || (c == '/' && p->_after_scheme))) {
        p->_word_t68 &= mcp__t68char(c);
        st = mcp__wa_put(p, c);
    } else if (c == ' ' || c == '\t') {
        p->_state = MCP__WA_WORD_WS;
    } else if (c == '=') {
        p->_eq_tight = p->_state == MCP__WA_WORD; p->_val_ws = 0;
        p->_name_len = p->_buf.len; p->_sep = 1;     /* the NUL does not count against the limit */
        st = mcp__wa_put(p, 0);
        p->_state = MCP__WA_VAL;
    } else if (c == ',' || c == -1) {
        *took = 0;
        return mcp__wa_word_end(p);
    } else if (p->_state == MCP__WA_WORD_WS && (mcp__tchar(c) || c == '/')) {
        *took = 0;
        if (p->_after_scheme)
            return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has two words side by side in a challenge; parameters must be name=value, separated by commas.");
        return mcp__wa_emit(p, MCP_WWWAUTH_SCHEME, MCP__WA_PSTART);
    } else {
        *took = 0;
        return mcp__wa_stray(p, c);
    }
    return st < 0 ? st : MCP_AGAIN;
}

/* After "name=" and its whitespace: the value, or a token68's trailing '='. */
static mcp_status mcp__wa_val(mcp_http_wwwauth *p, int c, int *took)
{
    mcp_status st;
    *took = 1;
    if (c == ' ' || c == '\t') { p->_val_ws = 1; return MCP_AGAIN; }
    if (c == '=' && mcp__wa_is_t68(p) && !p->_val_ws) {
        st = mcp__wa_to_t68(p);
        if (st == MCP_OK) st = mcp__wa_put(p, '=');
        p->_state = MCP__WA_T68EQ;
        return st < 0 ? st : MCP_AGAIN;
    }
    if (c == ',' || c == -1) {
        *took = 0;
        if (!mcp__wa_is_t68(p))
            return mcp__wa_fail(p, MCP_ERR_PARSE, "A parameter in the WWW-Authenticate header has no value after its '='.");
        if ((st = mcp__wa_to_t68(p)) < 0) return st;
        return mcp__wa_emit(p, MCP_WWWAUTH_TOKEN68, MCP__WA_AFTER);
    }
    if (c == '"' || mcp__tchar(c)) {
        if ((st = mcp__wa_param_start(p)) < 0) { *took = 0; return st; }
        p->_state = c == '"' ? MCP__WA_QUOTED : MCP__WA_TOKVAL;
        st = c == '"' ? MCP_OK : mcp__wa_put(p, c);
        return st < 0 ? st : MCP_AGAIN;
    }
    *took = 0;
    if (c == '=') return mcp__wa_fail(p, MCP_ERR_PARSE, "A parameter value in the WWW-Authenticate header begins with '='; such a value must be quoted.");
    return mcp__wa_stray(p, c);
}

/* Inside a quoted string (QUOTED), or right after a backslash in one (QPAIR). */
static mcp_status mcp__wa_quoted(mcp_http_wwwauth *p, int c, int *took)
{
    mcp_status st;
    *took = 1;
    if (c == -1) {
        *took = 0;
        return mcp__wa_fail(p, MCP_ERR_PARSE, "A quoted string in the WWW-Authenticate header has no closing '\"'.");
    }
    if (!mcp__vchar(c)) {
        *took = 0;
        return mcp__wa_fail(p, MCP_ERR_PARSE, p->_state == MCP__WA_QPAIR
                            ? "A backslash in a quoted string of the WWW-Authenticate header is followed by a control character."
                            : "A quoted string in the WWW-Authenticate header has a control character.");
    }
    if (p->_state == MCP__WA_QUOTED && c == '"') return mcp__wa_emit(p, MCP_WWWAUTH_PARAM, MCP__WA_AFTER);
    if (p->_state == MCP__WA_QUOTED && c == '\\') { p->_state = MCP__WA_QPAIR; return MCP_AGAIN; }
    p->_state = MCP__WA_QUOTED;
    st = mcp__wa_put(p, c);
    return st < 0 ? st : MCP_AGAIN;
}

/* An unquoted value (TOKVAL), a token68's trailing '=' (T68EQ), or after an item (AFTER). */
static mcp_status mcp__wa_tail(mcp_http_wwwauth *p, int c, int *took)
{
    mcp_status st;
    *took = 1;
    if (p->_state == MCP__WA_AFTER) {
        if (c == ',') p->_state = MCP__WA_LIST;
        else if (c != ' ' && c != '\t' && c != -1) {
            *took = 0;
            if (!mcp__vchar(c)) return mcp__wa_stray(p, c);
            return mcp__wa_fail(p, MCP_ERR_PARSE, "The WWW-Authenticate header has two items of a challenge without a comma between them.");
        }
        return MCP_AGAIN;
    }
    if (c == ' ' || c == '\t' || c == ',' || c == -1) {
        *took = 0;
        return mcp__wa_emit(p, p->_state == MCP__WA_TOKVAL ? MCP_WWWAUTH_PARAM : MCP_WWWAUTH_TOKEN68, MCP__WA_AFTER);
    }
    if (p->_state == MCP__WA_TOKVAL && mcp__tchar(c)) { st = mcp__wa_put(p, c); return st < 0 ? st : MCP_AGAIN; }
    if (p->_state == MCP__WA_T68EQ && c == '=') { st = mcp__wa_put(p, c); return st < 0 ? st : MCP_AGAIN; }
    *took = 0;
    if (!mcp__vchar(c)) return mcp__wa_stray(p, c);
    if (p->_state == MCP__WA_T68EQ)
        return mcp__wa_fail(p, MCP_ERR_PARSE, "A token68 in the WWW-Authenticate header has a character after its trailing '='.");
    return mcp__wa_fail(p, MCP_ERR_PARSE, "An unquoted parameter value in the WWW-Authenticate header has a character that is not allowed in a token; such a value must be quoted.");
}

/* One byte (c == -1: the end of the field). MCP_OK: an item is ready; MCP_AGAIN: none yet.
   *took says whether the byte was used up (a byte that only ends an item is read again). */
static mcp_status mcp__wa_byte(mcp_http_wwwauth *p, int c, int *took)
{
    switch (p->_state) {
    case MCP__WA_LIST: case MCP__WA_PSTART: return mcp__wa_between(p, c, took);
    case MCP__WA_WORD: case MCP__WA_WORD_WS: return mcp__wa_word(p, c, took);
    case MCP__WA_VAL: return mcp__wa_val(p, c, took);
    case MCP__WA_QUOTED: case MCP__WA_QPAIR: return mcp__wa_quoted(p, c, took);
    default: return mcp__wa_tail(p, c, took);
    }
}

MCPDEF mcp_status mcp_http_wwwauth_feed(mcp_http_wwwauth *p, const char *data, size_t len, size_t *used)
{
    size_t off = 0;
    int took;
    mcp_status st;
    *used = 0;
    if (p->_status < 0) return p->_status;
    if (p->_ready) return MCP_OK;
    if (p->_clear) { p->_buf.len = 0; p->_sep = 0; p->_clear = 0; }
    while (off < len) {
        st = mcp__wa_byte(p, (unsigned char)data[off], &took);
        off += (size_t)took;
        if (st != MCP_AGAIN) { *used = off; return st; }
    }
    *used = off;
    return MCP_AGAIN;
}

MCPDEF mcp_status mcp_http_wwwauth_next(mcp_http_wwwauth *p, mcp_http_wwwauth_item *it)
{
    if (!p->_ready) {
        memset(it, 0, sizeof *it);
        return p->_status < 0 ? p->_status : MCP_AGAIN;
    }
    *it = p->_item;
    p->_ready = 0; p->_clear = 1;
    return MCP_OK;
}

MCPDEF mcp_status mcp_http_wwwauth_finish(mcp_http_wwwauth *p)
{
    int took;
    mcp_status st;
    if (p->_status < 0) return p->_status;
    if (p->_ready)
        return mcp__wa_fail(p, MCP_ERR_INVALID, "mcp_http_wwwauth_finish was called while an item still waited for mcp_http_wwwauth_next.");
    if (p->_clear) { p->_buf.len = 0; p->_sep = 0; p->_clear = 0; }
    if ((st = mcp__wa_byte(p, -1, &took)) < 0) return st;
    p->_state = MCP__WA_LIST; p->_open = 0; p->_t68 = 0; p->_after_scheme = 0;   /* a new field */
    return MCP_OK;
}

MCPDEF void mcp_http_wwwauth_reset(mcp_http_wwwauth *p)
{
    p->what = NULL;
    p->_buf.len = 0; p->_name_len = 0; p->_items = 0;
    p->_state = MCP__WA_LIST; p->_after_scheme = 0; p->_open = 0; p->_t68 = 0; p->_word_t68 = 0;
    p->_eq_tight = 0; p->_val_ws = 0; p->_sep = 0; p->_ready = 0; p->_clear = 0;
    memset(&p->_item, 0, sizeof p->_item);
    p->_status = MCP_OK;
}

MCPDEF void mcp_http_wwwauth_free(mcp_http_wwwauth *p)
{
    if (!p) return;
    mcp_buf_free(&p->_buf);
    mcp_http_wwwauth_reset(p);
}

/* ---- the Bearer challenge ------------------------------------------------------------------- */

/* The parameters RFC 6750 section 3 and RFC 9728 section 5.1 define for Bearer: each at most
   once. The first four are kept, in mcp_http_bearer's order. */
static const char *const mcp__bearer_names[] = {
    "resource_metadata", "scope", "error", "error_description", "realm", "error_uri"
};

typedef struct mcp__bearer_acc {
    mcp_buf mem;                 /* the kept values, each NUL-terminated */
    size_t off[4];               /* where each starts in mem, or (size_t)-1 */
    unsigned seen;               /* which of mcp__bearer_names appeared */
    int state;                   /* 0: before the Bearer challenge, 1: in it, 2: after it */
} mcp__bearer_acc;

static mcp_status mcp__bearer_item(mcp__bearer_acc *a, const mcp_http_wwwauth_item *it, mcp_error *err)
{
    size_t i;
    if (it->kind == MCP_WWWAUTH_SCHEME) {
        if (a->state == 1) a->state = 2;
        else if (mcp__ieq(it->name, it->name_len, "bearer")) a->state = 1;
        return MCP_OK;
    }
    if (a->state != 1 || it->kind != MCP_WWWAUTH_PARAM) return MCP_OK;   /* a token68 is ignored */
    for (i = 0; i < sizeof mcp__bearer_names / sizeof mcp__bearer_names[0]; i++)
        if (mcp__ieq(it->name, it->name_len, mcp__bearer_names[i])) break;
    if (i == sizeof mcp__bearer_names / sizeof mcp__bearer_names[0]) return MCP_OK;
    if (a->seen & (1u << i))
        return mcp__fail(err, MCP_ERR_PARSE, "The Bearer challenge of the WWW-Authenticate header gives "
                         "the parameter %s more than once (RFC 6750 section 3 forbids it).", mcp__bearer_names[i]);
    a->seen |= 1u << i;
    if (i >= 4) return MCP_OK;
    a->off[i] = a->mem.len;
    if (mcp_buf_append(&a->mem, it->value, it->value_len + 1) != MCP_OK)
        return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory reading the WWW-Authenticate header.");
    return MCP_OK;
}

/* Feeds one field value to wa, handing each item to the accumulator until its challenge is
   over. */
static mcp_status mcp__bearer_field(mcp_http_wwwauth *wa, mcp__bearer_acc *a, const char *v,
                                    size_t field, mcp_error *err)
{
    size_t n = strlen(v), off = 0, used;
    mcp_http_wwwauth_item it;
    mcp_status st;
    int fin = 0;
    while (a->state < 2) {
        if (off < n) st = mcp_http_wwwauth_feed(wa, v + off, n - off, &used);
        else if (!fin) { st = mcp_http_wwwauth_finish(wa); fin = 1; used = 0; }
        else break;
        off += used;
        if (st < 0)
            return mcp__fail(err, st, "The WWW-Authenticate header (field %lu of the response) %s %s",
                             (unsigned long)field + 1, st == MCP_ERR_LIMIT ? "is too large:" : "is malformed:", wa->what);
        while (a->state < 2 && mcp_http_wwwauth_next(wa, &it) == MCP_OK)
            if ((st = mcp__bearer_item(a, &it, err)) < 0) return st;
    }
    return MCP_OK;
}

static mcp_status mcp__bearer_fill(mcp_http_bearer *b, const mcp_http_resp *r, const char *const *values,
                                   size_t n, mcp_error *err)
{
    mcp_http_wwwauth wa;
    mcp__bearer_acc a;
    const char *v;
    mcp_status st = MCP_OK;
    size_t i;
    memset(b, 0, sizeof *b);
    memset(&wa, 0, sizeof wa);
    memset(&a, 0, sizeof a);
    for (i = 0; i < 4; i++) a.off[i] = (size_t)-1;
    for (i = 0; a.state < 2 && st == MCP_OK; i++) {
        v = r ? mcp_http_resp_header(r, "www-authenticate", i) : i < n ? values[i] : NULL;
        if (!v) break;
        st = mcp__bearer_field(&wa, &a, v, i, err);
    }
    mcp_http_wwwauth_free(&wa);
    if (st < 0) { mcp_buf_free(&a.mem); return st; }
    b->found = a.state > 0;
    b->_mem = a.mem.data;
    b->resource_metadata = a.off[0] != (size_t)-1 ? b->_mem + a.off[0] : NULL;
    b->scope = a.off[1] != (size_t)-1 ? b->_mem + a.off[1] : NULL;
    b->error = a.off[2] != (size_t)-1 ? b->_mem + a.off[2] : NULL;
    b->error_description = a.off[3] != (size_t)-1 ? b->_mem + a.off[3] : NULL;
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_http_bearer_challenge(mcp_http_bearer *b, const mcp_http_resp *r, mcp_error *err)
{
    if (!r) { memset(b, 0, sizeof *b); return mcp__fail(err, MCP_ERR_INVALID, "mcp_http_bearer_challenge needs a response."); }
    return mcp__bearer_fill(b, r, NULL, 0, err);
}

MCPDEF mcp_status mcp_http_bearer_from_values(mcp_http_bearer *b, const char *const *values, size_t n,
                                              mcp_error *err)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!values[i]) { memset(b, 0, sizeof *b); return mcp__fail(err, MCP_ERR_INVALID, "mcp_http_bearer_from_values was given a NULL field value."); }
    return mcp__bearer_fill(b, NULL, values, n, err);
}

MCPDEF void mcp_http_bearer_free(mcp_http_bearer *b)
{
    if (!b) return;
    MCP_FREE(b->_mem, NULL);
    memset(b, 0, sizeof *b);
}

/* ---- form and query codec ------------------------------------------------------------------- */

static int mcp__unreserved(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

static char *mcp__form_enc(char *w, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *u = (const unsigned char *)s;
    for (; *u; u++) {
        if (mcp__unreserved(*u)) { *w++ = (char)*u; continue; }
        *w++ = '%'; *w++ = hex[*u >> 4]; *w++ = hex[*u & 15];
    }
    return w;
}

MCPDEF mcp_status mcp_http_form_append(mcp_buf *out, const char *name, const char *value, mcp_error *err)
{
    size_t n, m;
    char *w;
    if (!out || !name || !value)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_http_form_append needs a buffer, a name and a value (use \"\" for an empty one).");
    n = strlen(name); m = strlen(value);
    if (n > ((size_t)-1) / 8 || m > ((size_t)-1) / 8 - n || mcp_buf_reserve(out, 3 * (n + m) + 2) != MCP_OK)
        return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory writing form data.");
    w = out->data + out->len;
    if (out->len) *w++ = '&';
    w = mcp__form_enc(w, name);
    *w++ = '=';
    w = mcp__form_enc(w, value);
    out->len = (size_t)(w - out->data);
    mcp__ok(err);
    return MCP_OK;
}

/* Checks every escape of s[0..len): a '%' with two hex digits, not %00. Returns 0 or fails. */
static int mcp__form_check(const char *s, size_t len, mcp_error *err)
{
    const char *p = s, *end = s + len;
    if (memchr(s, 0, len))
        return mcp__fail(err, MCP_ERR_PARSE, "The form data has a NUL byte (at byte %lu).",
                         (unsigned long)((const char *)memchr(s, 0, len) - s));
    while ((p = (const char *)memchr(p, '%', (size_t)(end - p))) != NULL) {
        if (end - p < 3 || mcp__hexval((unsigned char)p[1]) < 0 || mcp__hexval((unsigned char)p[2]) < 0)
            return mcp__fail(err, MCP_ERR_PARSE, "The form data has a '%%' that is not followed by two "
                             "hex digits (at byte %lu).", (unsigned long)(p - s));
        if (p[1] == '0' && p[2] == '0')
            return mcp__fail(err, MCP_ERR_PARSE, "The form data encodes a NUL byte (%%00 at byte %lu).", (unsigned long)(p - s));
        p += 3;
    }
    return 0;
}

/* Decodes s[*i] ('+', %XX or itself; escapes already checked) and moves *i past it. */
static int mcp__form_dec(const char *s, size_t *i)
{
    int c = (unsigned char)s[*i];
    if (c == '+') c = ' ';
    else if (c == '%') { c = mcp__hexval((unsigned char)s[*i + 1]) * 16 + mcp__hexval((unsigned char)s[*i + 2]); *i += 2; }
    (*i)++;
    return c;
}

static int mcp__form_name_is(const char *s, size_t n, const char *name)
{
    size_t i = 0, j = 0;
    while (i < n)
        if (!name[j] || (unsigned char)name[j++] != mcp__form_dec(s, &i)) return 0;
    return name[j] == 0;
}

MCPDEF int mcp_http_form_get(const char *s, size_t len, const char *name, mcp_buf *out, mcp_error *err)
{
    size_t i = 0, pe, eq, k;
    int found = 0;
    const char *amp, *e;
    if ((!s && len) || !name || !out)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_http_form_get needs the form data, a name and a buffer.");
    if (len > MCP_HTTP_FORM_MAX)
        return mcp__fail(err, MCP_ERR_LIMIT, "The form data is %lu bytes long, more than the limit of %lu (MCP_HTTP_FORM_MAX).",
                         (unsigned long)len, (unsigned long)MCP_HTTP_FORM_MAX);
    out->len = 0;
    if (!len) { mcp__ok(err); return 0; }       /* s may be NULL then */
    if (mcp__form_check(s, len, err) < 0) return MCP_ERR_PARSE;
    while (i < len) {
        amp = (const char *)memchr(s + i, '&', len - i);
        pe = amp ? (size_t)(amp - s) : len;
        e = (const char *)memchr(s + i, '=', pe - i);
        eq = e ? (size_t)(e - s) : pe;
        if (pe > i && mcp__form_name_is(s + i, eq - i, name)) {
            if (found) {
                out->len = 0;
                return mcp__fail(err, MCP_ERR_PARSE, "The parameter \"%.100s\" appears more than once in the form "
                                 "data; RFC 6749 section 3.1 allows each parameter only once.", name);
            }
            found = 1;
            if (mcp_buf_reserve(out, pe - eq + 1) != MCP_OK)
                return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory reading form data.");
            for (k = eq + 1; k < pe;) out->data[out->len++] = (char)mcp__form_dec(s, &k);
            out->data[out->len] = 0;
        }
        i = pe + 1;
    }
    mcp__ok(err);
    return found;
}
#endif /* MCP_NO_AUTH */

/* ============================================================================================
   >>sse
   ============================================================================================ */

static mcp_status mcp__sse_fail(mcp_sse *p, mcp_status st, const char *what)
{
    p->_status = st; p->what = what;
    return st;
}

/* Is s[0..n) valid UTF-8? ASCII runs go by at the scanner's pace. */
static int mcp__utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    int k;
    while (p < end) {
        p = mcp__str_skip(p, end, 1, NULL);
        if (p >= end) break;
        if (*p < 0x80) { p++; continue; }
        if (!(k = mcp__utf8_seq(p, end))) return 0;
        p += k;
    }
    return 1;
}

/* The WHATWG UTF-8 decoder's output for a line that is not valid UTF-8: each maximal invalid
   subpart becomes U+FFFD. Returns the repaired copy (in p->_fix) or the line itself. */
static const char *mcp__sse_utf8(mcp_sse *p, const char *s, size_t *n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, j, len = *n;
    int need, k;
    unsigned lo, hi, c;
    if (mcp__utf8_valid(s, len)) return s;      /* the usual case */
    while (i < len && u[i] < 0x80) i++;
    p->_fix.len = 0;
    if (mcp_buf_append(&p->_fix, s, i) != MCP_OK) return NULL;
    while (i < len) {
        c = u[i];
        if (c < 0x80) { if (mcp_buf_append(&p->_fix, s + i, 1) != MCP_OK) return NULL; i++; continue; }
        lo = 0x80; hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c >= 0xE0 && c <= 0xEF) { need = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
        else need = 0;
        for (j = i + 1, k = 0; k < need && j < len && u[j] >= lo && u[j] <= hi; j++, k++) { lo = 0x80; hi = 0xBF; }
        if (need && k == need) {
            if (mcp_buf_append(&p->_fix, s + i, j - i) != MCP_OK) return NULL;
        } else {
            if (mcp_buf_append(&p->_fix, "\xEF\xBF\xBD", 3) != MCP_OK) return NULL;
            if (!need) j = i + 1;                 /* the offending byte is read again */
        }
        i = j;
    }
    *n = p->_fix.len;
    return p->_fix.data;
}

static int mcp__sse_set(mcp_buf *b, const char *s, size_t n)
{
    b->len = 0;
    return mcp_buf_append(b, s, n) == MCP_OK && mcp_buf_append(b, "", 1) == MCP_OK
           ? (b->len--, 1) : 0;
}

/* Interprets one complete line. Returns MCP_OK when it dispatched an event, MCP_AGAIN
   otherwise, or an error. */
static mcp_status mcp__sse_line(mcp_sse *p, const char *line, size_t n)
{
    size_t max = p->max_event ? p->max_event : MCP_SSE_MAX_EVENT, fl, i;
    const char *colon, *val;
    size_t vn;
    unsigned long r;
    if (!p->_bom_done) {
        p->_bom_done = 1;
        if (n >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) { line += 3; n -= 3; }
    }
    if (n == 0) {                                             /* dispatch */
        if (!mcp__sse_set(&p->_lastid, p->_idbuf.data ? p->_idbuf.data : "", p->_idbuf.len))
            return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory");
        if (p->_data.len == 0) { p->_type.len = 0; return MCP_AGAIN; }
        p->_data.len--;                                       /* the trailing LF */
        p->_ready = 1;
        return MCP_OK;
    }
    if (line[0] == ':') return MCP_AGAIN;                     /* comment */
    if (n > max) return mcp__sse_fail(p, MCP_ERR_LIMIT, "a line is longer than the limit");
    if (!(line = mcp__sse_utf8(p, line, &n))) return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory");
    colon = (const char *)memchr(line, ':', n);
    fl = colon ? (size_t)(colon - line) : n;
    val = colon ? colon + 1 : line + n;
    vn = colon ? n - fl - 1 : 0;
    if (vn && *val == ' ') { val++; vn--; }
    if (fl == 4 && !memcmp(line, "data", 4)) {
        if (p->_data.len + vn > max) return mcp__sse_fail(p, MCP_ERR_LIMIT, "an event's data is larger than the limit");
        if (mcp_buf_append(&p->_data, val, vn) != MCP_OK || mcp_buf_append(&p->_data, "\n", 1) != MCP_OK)
            return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory");
    } else if (fl == 5 && !memcmp(line, "event", 5)) {
        if (!mcp__sse_set(&p->_type, val, vn)) return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory");
    } else if (fl == 2 && !memcmp(line, "id", 2)) {
        if (!memchr(val, 0, vn) && !mcp__sse_set(&p->_idbuf, val, vn))
            return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory");
    } else if (fl == 5 && !memcmp(line, "retry", 5) && vn) {
        for (i = 0, r = 0; i < vn && val[i] >= '0' && val[i] <= '9'; i++)
            r = r >= 100000000ul ? 1000000000ul : r * 10 + (unsigned long)(val[i] - '0');  /* caps at 1e9 ms */
        if (i == vn) { p->has_retry = 1; p->retry_ms = r; }
    }
    return MCP_AGAIN;
}

/* How many bytes of a leading BOM (or of its start) the first line holds so far: they do
   not count against the line limit, as the complete line is measured without them. */
static size_t mcp__sse_bom_prefix(const mcp_sse *p, const char *s, size_t n)
{
    static const unsigned char bom[3] = { 0xEF, 0xBB, 0xBF };
    size_t k = 0, i;
    if (p->_bom_done) return 0;
    for (i = 0; k < 3 && i < p->_line.len; i++, k++) if ((unsigned char)p->_line.data[i] != bom[k]) return 0;
    for (i = 0; k < 3 && i < n; i++, k++) if ((unsigned char)s[i] != bom[k]) return 0;
    return k;
}

/* Does the unfinished line (what is buffered, then s[0..n)) begin as a comment? Comments
   are skipped as they stream by instead of being buffered, whatever their length. */
static int mcp__sse_comment_start(const mcp_sse *p, const char *s, size_t n)
{
    unsigned char h[4];
    size_t k = 0, i;
    for (i = 0; i < p->_line.len && k < 4; i++) h[k++] = (unsigned char)p->_line.data[i];
    for (i = 0; i < n && k < 4; i++) h[k++] = (unsigned char)s[i];
    if (k >= 1 && h[0] == ':') return 1;
    return !p->_bom_done && k == 4 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF && h[3] == ':';
}

/* First CR or LF in [s, end), or end. */
static const char *mcp__find_eol(const char *s, const char *end)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t x, a, b;
#ifdef MCP__VECTOR
    while (end - s >= 32) {                        /* long data lines: 32 bytes a step */
        mcp__i8x16 v, w, o;
        memcpy(&v, s, 16); memcpy(&w, s + 16, 16);
        o = (v == '\n') | (v == '\r') | (w == '\n') | (w == '\r');
        memcpy(&a, &o, 8); memcpy(&b, (const char *)&o + 8, 8);
        if (a | b) break;
        s += 32;
    }
#endif
    while (end - s >= 8) {
        memcpy(&x, s, 8);
        a = x ^ (ones * '\n'); b = x ^ (ones * '\r');
        if ((((a - ones) & ~a) | ((b - ones) & ~b)) & highs) break;
        s += 8;
    }
    while (s < end && *s != '\n' && *s != '\r') s++;
    return s;
}

MCPDEF mcp_status mcp_sse_feed(mcp_sse *p, const char *data, size_t len, size_t *used)
{
    size_t max = p->max_event ? p->max_event : MCP_SSE_MAX_EVENT, off = 0, seg;
    const char *eol, *line;
    mcp_status st;
    *used = 0;
    if (p->_status < 0) return p->_status;
    if (p->_ready) return MCP_OK;
    if (p->_clear) { p->_data.len = 0; p->_type.len = 0; p->_clear = 0; }
    while (off < len) {
        if (p->_cr) {                              /* a CR ended the last line: skip its LF */
            p->_cr = 0;
            if (data[off] == '\n') { off++; continue; }
        }
        eol = mcp__find_eol(data + off, data + len);
        seg = (size_t)(eol - (data + off));
        if (eol == data + len) {                   /* unfinished line: keep it, unless a comment */
            if (!p->_skip && mcp__sse_comment_start(p, data + off, seg)) {
                p->_skip = 1; p->_bom_done = 1; p->_line.len = 0;
            }
            if (!p->_skip) {
                if (p->_line.len + seg - mcp__sse_bom_prefix(p, data + off, seg) > max) {
                    *used = off;
                    return mcp__sse_fail(p, MCP_ERR_LIMIT, "a line is longer than the limit");
                }
                if (mcp_buf_append(&p->_line, data + off, seg) != MCP_OK) { *used = off; return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory"); }
            }
            off = len;
            break;
        }
        if (p->_skip) { p->_skip = 0; off += seg + 1; p->_cr = *eol == '\r'; continue; }
        if (p->_line.len) {                        /* sse_line checks the length */
            if (mcp_buf_append(&p->_line, data + off, seg) != MCP_OK) { *used = off; return mcp__sse_fail(p, MCP_ERR_NOMEM, "out of memory"); }
            line = p->_line.data; seg = p->_line.len;
        } else {
            line = data + off;
        }
        off = (size_t)(eol - data) + 1;
        p->_cr = *eol == '\r';
        st = mcp__sse_line(p, line, seg);
        p->_line.len = 0;
        if (st < 0) { *used = off; return st; }
        if (st == MCP_OK) { *used = off; return MCP_OK; }
    }
    *used = off;
    return MCP_AGAIN;
}

MCPDEF mcp_status mcp_sse_next(mcp_sse *p, mcp_sse_event *ev)
{
    if (!p->_ready) {
        memset(ev, 0, sizeof *ev);
        return p->_status < 0 ? p->_status : MCP_AGAIN;
    }
    p->_ready = 0; p->_clear = 1;
    if (mcp_buf_reserve(&p->_data, 1) == MCP_OK) p->_data.data[p->_data.len] = 0;
    ev->data = p->_data.data; ev->data_len = p->_data.len;
    if (p->_type.len) { ev->type = p->_type.data; ev->type_len = p->_type.len; }
    else { ev->type = "message"; ev->type_len = 7; }
    ev->id = p->_lastid.data ? p->_lastid.data : ""; ev->id_len = p->_lastid.len;
    return MCP_OK;
}

MCPDEF mcp_status mcp_sse_finish(mcp_sse *p)
{
    if (p->_status < 0) return p->_status;
    p->_line.len = 0; p->_skip = 0; p->_cr = 0;
    if (!p->_ready) { p->_data.len = 0; p->_type.len = 0; }
    return MCP_OK;
}

MCPDEF const char *mcp_sse_last_id(const mcp_sse *p, size_t *len)
{
    if (len) *len = p->_lastid.len;
    return p->_lastid.data ? p->_lastid.data : "";
}

MCPDEF void mcp_sse_reset(mcp_sse *p)
{
    p->_line.len = 0; p->_data.len = 0; p->_type.len = 0; p->_fix.len = 0;
    p->_cr = 0; p->_skip = 0; p->_bom_done = 0; p->_ready = 0; p->_clear = 0;
    p->_status = MCP_OK; p->what = NULL;
    /* the last event id and retry outlive a reconnection, as in EventSource */
    if (!mcp__sse_set(&p->_idbuf, p->_lastid.data ? p->_lastid.data : "", p->_lastid.len)) {}
}

MCPDEF void mcp_sse_free(mcp_sse *p)
{
    if (!p) return;
    mcp_buf_free(&p->_line); mcp_buf_free(&p->_data); mcp_buf_free(&p->_type);
    mcp_buf_free(&p->_idbuf); mcp_buf_free(&p->_lastid); mcp_buf_free(&p->_fix);
    p->_cr = 0; p->_skip = 0; p->_bom_done = 0; p->_ready = 0; p->_clear = 0;
    p->_status = MCP_OK; p->what = NULL; p->has_retry = 0; p->retry_ms = 0;
}
#endif /* MCP_NO_HTTP */

/* ============================================================================================
   >>rpc
   ============================================================================================ */

static int mcp__is_id(const mcp_json *id)
{
    return mcp_json_typeof(id) == MCP_JSON_STRING ||
           (mcp_json_typeof(id) == MCP_JSON_NUMBER && mcp_json_int64(id, NULL));
}

MCPDEF mcp_msg_kind mcp_rpc_classify(const mcp_json *m, const char **why)
{
    const mcp_json *v, *id, *method, *res, *er;
    const char *w;
    if (mcp_json_typeof(m) != MCP_JSON_OBJECT) { w = "it is not a JSON object"; goto bad; }
    v = mcp_json_get(m, "jsonrpc");
    if (mcp_json_len(v) != 3 || !mcp_json_str(v) || memcmp(mcp_json_str(v), "2.0", 3)) {
        w = "its \"jsonrpc\" member is not \"2.0\""; goto bad;
    }
    id = mcp_json_get(m, "id"); method = mcp_json_get(m, "method");
    res = mcp_json_get(m, "result"); er = mcp_json_get(m, "error");
    if (method) {
        if (mcp_json_typeof(method) != MCP_JSON_STRING) { w = "its \"method\" is not a string"; goto bad; }
        if (!id) return MCP_MSG_NOTIFICATION;
        if (!mcp__is_id(id)) { w = "its \"id\" is neither a string nor an integer"; goto bad; }
        return MCP_MSG_REQUEST;
    }
    if (!id) { w = "it has neither \"method\" nor \"id\""; goto bad; }
    if (res && er) { w = "it has both \"result\" and \"error\""; goto bad; }
    if (res) {
        if (!mcp__is_id(id)) { w = "its \"id\" is neither a string nor an integer"; goto bad; }
        return MCP_MSG_RESULT;
    }
    if (er) {
        if (!mcp__is_id(id) && mcp_json_typeof(id) != MCP_JSON_NULL) {
            w = "its \"id\" is neither a string, an integer nor null"; goto bad;
        }
        if (mcp_json_typeof(er) != MCP_JSON_OBJECT || !mcp_json_int64(mcp_json_get(er, "code"), NULL) ||
            mcp_json_typeof(mcp_json_get(er, "message")) != MCP_JSON_STRING) {
            w = "its \"error\" is not an object with an integer \"code\" and a string \"message\"";
            goto bad;
        }
        return MCP_MSG_ERROR;
    }
    w = "it has an \"id\" but no \"method\", \"result\" or \"error\"";
bad:
    if (why) *why = w;
    return MCP_MSG_INVALID;
}

#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
/* The engine's bookkeeping: calls in flight by id (chained hash, O(1)), and their deadlines
   (a binary min-heap). Deadlines are milliseconds of mcp_time_ms(); the caller passes now. */

/* A request in flight as the engine sees it: its id and deadlines. A client's call
   (struct mcp__pending, >>client.calls) begins with one. */
typedef struct mcp__pending {
    int64_t id;
    int64_t due;                         /* next deadline, -1: none */
    int64_t deadline, hard;              /* timeout and maximum total, -1: none */
    struct mcp__pending *hnext;          /* hash chain */
    size_t heap_i;                       /* position in the heap, or MCP__NOWHERE */
} mcp__pending;

#define MCP__NOWHERE ((size_t)-1)

typedef struct mcp__rpc {
    int64_t next_id;
    mcp__pending **bucket; size_t nbucket, count;
    mcp__pending **heap; size_t nheap, heapcap;
} mcp__rpc;

static size_t mcp__hash_id(int64_t id, size_t n) { return (size_t)((uint64_t)id * 0x9E3779B97F4A7C15u >> 32) & (n - 1); }

static mcp__pending *mcp__rpc_find(const mcp__rpc *r, int64_t id)
{
    mcp__pending *k;
    if (!r->nbucket) return NULL;
    for (k = r->bucket[mcp__hash_id(id, r->nbucket)]; k; k = k->hnext)
        if (k->id == id) return k;
    return NULL;
}

static int mcp__rpc_insert(mcp__rpc *r, mcp__pending *call)
{
    size_t i, h;
    mcp__pending **nb, *k, *next;
    if (r->count >= r->nbucket) {            /* grow and rehash at load 1 */
        size_t n = r->nbucket ? r->nbucket * 2 : 64;
        nb = (mcp__pending **)MCP_MALLOC(n * sizeof *nb, NULL);
        if (!nb) return 0;
        memset(nb, 0, n * sizeof *nb);
        for (i = 0; i < r->nbucket; i++)
            for (k = r->bucket[i]; k; k = next) {
                next = k->hnext; h = mcp__hash_id(k->id, n);
                k->hnext = nb[h]; nb[h] = k;
            }
        MCP_FREE(r->bucket, NULL);
        r->bucket = nb; r->nbucket = n;
    }
    h = mcp__hash_id(call->id, r->nbucket);
    call->hnext = r->bucket[h]; r->bucket[h] = call;
    r->count++;
    return 1;
}

static void mcp__rpc_unlink(mcp__rpc *r, mcp__pending *call)
{
    mcp__pending **pp;
    if (!r->nbucket) return;
    for (pp = &r->bucket[mcp__hash_id(call->id, r->nbucket)]; *pp; pp = &(*pp)->hnext)
        if (*pp == call) { *pp = call->hnext; call->hnext = NULL; r->count--; return; }
}

static void mcp__heap_set(mcp__rpc *r, size_t i, mcp__pending *call) { r->heap[i] = call; call->heap_i = i; }

static void mcp__heap_up(mcp__rpc *r, size_t i)
{
    mcp__pending *x = r->heap[i];
    while (i > 0 && r->heap[(i - 1) / 2]->due > x->due) { mcp__heap_set(r, i, r->heap[(i - 1) / 2]); i = (i - 1) / 2; }
    mcp__heap_set(r, i, x);
}

static void mcp__heap_down(mcp__rpc *r, size_t i)
{
    mcp__pending *x = r->heap[i];
    size_t k;
    for (;;) {
        k = 2 * i + 1;
        if (k >= r->nheap) break;
        if (k + 1 < r->nheap && r->heap[k + 1]->due < r->heap[k]->due) k++;
        if (r->heap[k]->due >= x->due) break;
        mcp__heap_set(r, i, r->heap[k]); i = k;
    }
    mcp__heap_set(r, i, x);
}

static void mcp__heap_remove(mcp__rpc *r, mcp__pending *call)
{
    size_t i = call->heap_i;
    mcp__pending *last;
    if (i == MCP__NOWHERE) return;
    call->heap_i = MCP__NOWHERE;
    if (--r->nheap == i) return;
    last = r->heap[r->nheap];
    mcp__heap_set(r, i, last);
    mcp__heap_up(r, i);
    if (r->heap[i] == last) mcp__heap_down(r, i);
}

/* (Re)files a call under its current due time; calls without one leave the heap. */
static int mcp__heap_update(mcp__rpc *r, mcp__pending *call)
{
    mcp__heap_remove(r, call);
    if (call->due < 0) return 1;
    if (r->nheap == r->heapcap &&
        !mcp__grow((void **)&r->heap, &r->heapcap, sizeof *r->heap, r->nheap + 1, NULL, NULL))
        return 0;
    mcp__heap_set(r, r->nheap, call);
    mcp__heap_up(r, r->nheap++);
    return 1;
}

static void mcp__rpc_free(mcp__rpc *r)
{
    MCP_FREE(r->bucket, NULL); MCP_FREE(r->heap, NULL);
    r->bucket = NULL; r->heap = NULL; r->nbucket = r->count = r->nheap = r->heapcap = 0;
}

/* A call's next deadline: the timeout, capped by the maximum total. */
static void mcp__call_due(mcp__pending *call)
{
    call->due = call->deadline;
    if (call->hard >= 0 && (call->due < 0 || call->hard < call->due)) call->due = call->hard;
}
#endif /* a transport */

#if !defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP)
/* ============================================================================================
   >>transport  the only layer that touches the OS: one table of operations, three built in
   ============================================================================================
   A transport moves bytes and says what happened; the client decides what it means. The
   table (struct mcp_transport, public: a program may bring its own) is the whole boundary:

     open      starts the connection (spawns the server, resolves the host) and returns the
               transport's state, or NULL with err set. Like every operation it may report
               events: they wait in the client's queue, in order.
     send      one message: its JSON text (no newline), the request id it carries (-1: a
               notification or a reply), its extra headers ("Name: value\0...\0", or NULL)
               and MCP_SEND_* flags. MCP_OK once it is queued; an error only when it cannot
               be queued at all (later failures are reported as MCP_TEV_FAILED).
     pollfds   the descriptors to wait for now (at most max; fds NULL: how many).
     due       the next time io must run even if no descriptor is ready (mcp_time_ms(); 0:
               now; -1: none).
     io        the I/O that is ready, waiting at most wait_ms (-1: until something happens,
               0: not at all). Events are reported from here, with mcp_transport_report.
     abandon   the request is of no interest any more (timed out, cancelled, answered
               another way): drop its exchange. Unknown ids are ignored.
     close     ends the transport a step at a time: the first call begins (now: without the
               polite waits), each call waits at most wait_ms and returns 1 while the close
               goes on, 0 once it is over. pollfds and due stay valid until then.
     free      releases everything; the close is over (or never began).
   Optional (NULL: not supported): resume (go on with a request after MCP_TEV_SESSION_LOST
   or a resumable MCP_TEV_BROKEN), ready (the protocol version agreed, and whether it is
   2026-07-28's), busy (messages sent are still on their way: a notification's POST), pid,
   stats (adds the transport's counters), authorize (from now on every HTTP request to the
   server carries "Authorization: <value>"; NULL: none; never sent to another origin).

   Events (mcp_tev), reported in the order things happened, and acted on in that order:
     MESSAGE       text is a JSON-RPC message (or batch); id the request whose exchange
                   carried it. mcp_transport_report returns how many requests it answered:
                   request id, or (id -1) any in flight, each once; so an exchange knows it
                   is done, and stdio how many requests are still waiting.
     STDERR, LOG   a line of the server's diagnostics; a sentence for desc.on_log (status
                   < 0: it tells of a message lost, counted in stats.dropped).
     FAILED        request id failed below MCP: status, sentence, http_status, sys_errno,
                   and body, the start of an HTTP error body (it may hold a JSON-RPC error).
     SESSION_LOST  request id (or -1) met an expired session (HTTP 404); the transport keeps
                   it for resume (after a new session) or abandon.
     UNAUTHORIZED  request id (or -1: a notification, a stream) met HTTP 401 or 403 (only when
                   desc.auth is set): text the sentence, body the WWW-Authenticate values one
                   per line; kept for resume (once authorized: it goes again) or abandon.
     BROKEN        id >= 0: its response stream ended before the answer, resumable when the
                   transport can go on from the last event; id -1: the connection is gone
                   (status, sentence; the client then closes the transport).
     CLOSED        the close is over (reported from close, once): the sentence says how the
                   server ended, detail the short form ("exited with status 1"), body its
                   most telling stderr line, server_ended whether it ended on its own.

   Every fd is close-on-exec and non-blocking on our side. */

/* The built-in tables' own flags, beside MCP_TRANSPORT_HTTP: */
#define MCP__TRANSPORT_FALLBACK 0x100    /* Streamable HTTP: initialize refused, try HTTP+SSE */
#define MCP__TRANSPORT_LEGACY 0x200      /* HTTP+SSE: the 2024-11-05 handshake only */

#define MCP__RBUF 32768                  /* bytes read at a time (a 16 KB answer in one read) */
#define MCP__OUT_BATCH 16384             /* queued request bytes that are written at once */
#define MCP__OUT_MAX ((size_t)64 << 20)  /* mcp_client_desc.max_queued by default */

static void mcp__nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

MCPDEF int mcp_poll(mcp_pollfd *fds, int n, int timeout_ms)
{
    struct pollfd small[256], *pf = small;
    int i, r;
    if (n < 0 || (n && !fds)) return 0;
    if (n > 256 && !(pf = (struct pollfd *)MCP_MALLOC((size_t)n * sizeof *pf, NULL))) {
        pf = small; n = 256;                             /* no memory: the first 256, and soon */
        if (timeout_ms < 0 || timeout_ms > 10) timeout_ms = 10;
    }
    for (i = 0; i < n; i++) { pf[i].fd = fds[i].fd; pf[i].events = fds[i].events; pf[i].revents = 0; }
    r = poll(pf, (nfds_t)n, timeout_ms);
    for (i = 0; i < n; i++) fds[i].revents = r > 0 ? pf[i].revents : 0;
    if (pf != small) MCP_FREE(pf, NULL);
    return r > 0 ? r : 0;
}

/* Reports an event of this kind about request id (-1: none), with a sentence formatted like
   printf (fmt NULL: ev's own text, if any); ev (NULL: none) brings the other fields. */
static int mcp__tell(mcp_client *c, mcp_tev *ev, mcp_tev_kind kind, int64_t id, mcp_status st,
                     const char *fmt, ...) MCP__PRINTF(6, 7);
static int mcp__tell(mcp_client *c, mcp_tev *ev, mcp_tev_kind kind, int64_t id, mcp_status st,
                     const char *fmt, ...)
{
    mcp_tev local;
    char msg[480];
    va_list ap;
    int n;
    if (!ev) { memset(&local, 0, sizeof local); ev = &local; }
    ev->kind = kind; ev->id = id; ev->status = st;
    if (fmt) {
        va_start(ap, fmt);
        n = vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        ev->text = msg;
        ev->len = n < 0 ? 0 : (size_t)n >= sizeof msg ? sizeof msg - 1 : (size_t)n;
    }
    return mcp_transport_report(c, ev);
}

/* A sentence for desc.on_log, formatted only when there is one. */
#define MCP__TP_LOG(c, d, ...) \
    do { if ((d)->on_log) mcp__tell((c), NULL, MCP_TEV_LOG, -1, MCP_OK, __VA_ARGS__); } while (0)

#ifndef MCP_NO_STDIO
/* ---- >>transport.stdio  the server as a child process, JSON lines over pipes ----------------
   The child runs in its own session (so its process group is its pid); nothing here changes
   signal dispositions or masks: we keep a read end of the child's stdin pipe open (and never
   read it), so writing to it can never raise SIGPIPE, whatever the child does. */

static void mcp__close_fd(int *fd) { if (*fd >= 0) { close(*fd); *fd = -1; } }

#define MCP__TAIL 4096                  /* stderr bytes kept for error messages */

/* The steps of the close, each a wait: EOF (stdin closed) -> TERM (SIGTERM sent) -> KILL
   (SIGKILL sent) -> GROUP (the leader reaped; what is left of its group gets SIGTERM, then
   SIGKILL) -> DONE. */
enum { MCP__SC_OPEN = 0, MCP__SC_EOF, MCP__SC_TERM, MCP__SC_KILL, MCP__SC_GROUP, MCP__SC_DONE };

typedef struct mcp__stdio {
    mcp_client *c;                       /* where events go */
    const mcp_client_desc *d;
    pid_t pid;                           /* 0: no child */
    int in_fd, out_fd, err_fd;           /* the child's stdin (we write), stdout, stderr */
    int in_hold;                         /* a read end of the child's stdin, never read */
    int pidfd;                           /* Linux: readable when the child exits; else -1 */
    int exited, reaped, wstatus, signalled;
    int down;                            /* the end was reported (BROKEN): only the close is left */
    int step; int64_t step_end;          /* the close (MCP__SC_*) and when its wait ends */
    int64_t stdin_gone;                  /* when writing to it failed: the grace for answers ends */
    unsigned inflight;                   /* requests sent and not yet answered or abandoned */
    uint64_t stderr_bytes;
    mcp_jsonl fr;
    mcp_buf out; size_t out_off;         /* bytes queued for the child's stdin */
    mcp_buf errline;                     /* an unfinished stderr line */
    char tail[MCP__TAIL]; size_t tail_len;
    char *rbuf;
    unsigned early;                      /* answers the read before poll took (mcp__stdio_io) */
} mcp__stdio;
/* A pipe whose ends are close-on-exec and not 0, 1 or 2 (those are the child's stdio). */
static int mcp__pipe(int fds[2])
{
    int i, nfd;
#ifdef __linux__
    if (pipe2(fds, O_CLOEXEC) < 0) return -1;
#else
    if (pipe(fds) < 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC); fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#endif
    for (i = 0; i < 2; i++)
        if (fds[i] < 3) {
            nfd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
            if (nfd < 0) { close(fds[0]); close(fds[1]); return -1; }
            close(fds[i]); fds[i] = nfd;
        }
    return 0;
}


/* A pidfd turns "the child exited" into an fd event even while a grandchild keeps its stdout
   open. Without one (not Linux, or before 5.3) poll waits are capped and waitid is asked. */
static int mcp__pidfd_open(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
    long fd = syscall(SYS_pidfd_open, (long)pid, 0L);
    return fd < 0 ? -1 : (int)fd;
#else
    (void)pid;
    return -1;
#endif
}

/* The environment for the child: ours with "K=V" overrides (and "K" removals) applied.
   One allocation holds the array and the strings it adds. */
static char **mcp__child_env(const char *const *over)
{
    extern char **environ;
    size_t n = 0, m = 0, i, j, k, klen;
    char **env;
    if (!over) return environ;
    while (environ[n]) n++;
    while (over[m]) m++;
    env = (char **)MCP_MALLOC((n + m + 1) * sizeof *env, NULL);
    if (!env) return NULL;
    for (i = 0, k = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        for (j = 0; j < m; j++) {
            const char *oeq = strchr(over[j], '=');
            size_t olen = oeq ? (size_t)(oeq - over[j]) : strlen(over[j]);
            if (olen == klen && !memcmp(over[j], environ[i], klen)) break;
        }
        if (j == m) env[k++] = environ[i];
    }
    for (j = 0; j < m; j++)
        if (strchr(over[j], '=')) env[k++] = (char *)over[j];
    env[k] = NULL;
    return env;
}

/* PATH lookup in the parent (the child may only make async-signal-safe calls). */
static char *mcp__find_exe(const char *cmd, char *const *env)
{
    const char *path = NULL, *p, *e;
    size_t i, cl = strlen(cmd), dl;
    char *full;
    struct stat st;
    if (strchr(cmd, '/')) {
        full = (char *)MCP_MALLOC(cl + 1, NULL);
        if (full) memcpy(full, cmd, cl + 1);
        return full;
    }
    for (i = 0; env[i]; i++)
        if (!strncmp(env[i], "PATH=", 5)) { path = env[i] + 5; break; }
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path; ; p = e + 1) {
        e = strchr(p, ':');
        if (!e) e = p + strlen(p);
        dl = (size_t)(e - p);
        full = (char *)MCP_MALLOC(dl + cl + 3, NULL);
        if (!full) return NULL;
        memcpy(full, dl ? p : ".", dl ? dl : 1);
        if (!dl) dl = 1;
        full[dl] = '/';
        memcpy(full + dl + 1, cmd, cl + 1);
        if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK)) return full;
        MCP_FREE(full, NULL);
        if (!*e) break;
    }
    errno = ENOENT;
    return NULL;
}

/* Child side of fork: only async-signal-safe calls until execve. Reports errno through
   the close-on-exec pipe `rep`: the parent reads EOF when exec succeeded. */
static void mcp__child(const char *exe, char *const *argv, char *const *env, const char *cwd,
                       int in_r, int out_w, int err_w, int rep)
{
    sigset_t none;
    struct sigaction dfl;
    int e, step;
    setsid();
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, NULL);           /* the child's, not ours: exec starts it fresh */
    step = 1;
    if (cwd && chdir(cwd) < 0) goto fail;
    step = 2;
    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) goto fail;
    step = 3;
    execve(exe, argv, env);
fail:
    e = errno;
    {
        int msg[2];
        msg[0] = step; msg[1] = e;
        if (write(rep, msg, sizeof msg) < 0) {}
    }
    _exit(127);
}

static mcp_status mcp__spawn(mcp__stdio *s, const mcp_client_desc *d, mcp_error *err)
{
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1}, prep[2] = {-1, -1};
    char **env = NULL, **argv = NULL, *exe = NULL;
    size_t n = 0, i;
    int msg[2], e;
    long got;
    mcp_status st = MCP_OK;
    s->pid = 0; s->in_fd = s->out_fd = s->err_fd = s->pidfd = s->in_hold = -1;
    s->signalled = 0; s->stdin_gone = 0;
    if (!d->command || !*d->command)
        return mcp__fail(err, MCP_ERR_INVALID, "The stdio transport needs a command to run.");
    while (d->args && d->args[n]) n++;
    argv = (char **)MCP_MALLOC((n + 2) * sizeof *argv, NULL);
    env = mcp__child_env(d->env);
    if (!argv || !env) { st = mcp__fail(err, MCP_ERR_NOMEM, "Out of memory starting the server."); goto out; }
    argv[0] = (char *)d->command;
    for (i = 0; i < n; i++) argv[i + 1] = (char *)d->args[i];
    argv[n + 1] = NULL;
    if (!(exe = mcp__find_exe(d->command, env))) {
        e = errno;
        st = mcp__fail(err, e == ENOMEM ? MCP_ERR_NOMEM : MCP_ERR_IO,
                       "Could not start the server: \"%.200s\" was not found on PATH.", d->command);
        if (err) err->sys_errno = e;
        goto out;
    }
    if (mcp__pipe(pin) || mcp__pipe(pout) || mcp__pipe(perr) || mcp__pipe(prep)) {
        e = errno;
        st = mcp__fail(err, MCP_ERR_IO, "Could not create pipes for the server: %s.", strerror(e));
        if (err) err->sys_errno = e;
        goto out;
    }
    s->pid = fork();
    if (s->pid < 0) {
        e = errno; s->pid = 0;
        st = mcp__fail(err, MCP_ERR_IO, "Could not start the server: fork failed: %s.", strerror(e));
        if (err) err->sys_errno = e;
        goto out;
    }
    if (s->pid == 0) mcp__child(exe, argv, env, d->cwd, pin[0], pout[1], perr[1], prep[1]);
    mcp__close_fd(&pout[1]); mcp__close_fd(&perr[1]); mcp__close_fd(&prep[1]);
    do got = (long)read(prep[0], msg, sizeof msg); while (got < 0 && errno == EINTR);
    if (got == (long)sizeof msg) {                    /* the child could not exec */
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {}
        s->pid = 0;
        if (msg[0] == 1)
            st = mcp__fail(err, MCP_ERR_IO, "Could not start the server \"%.200s\": cannot change to "
                           "directory \"%.200s\": %s.", d->command, d->cwd ? d->cwd : "", strerror(msg[1]));
        else
            st = mcp__fail(err, MCP_ERR_IO, "Could not start the server \"%.200s\" (%.200s): %s.",
                           d->command, exe, strerror(msg[1]));
        if (err) err->sys_errno = msg[1];
        goto out;
    }
    s->pidfd = mcp__pidfd_open(s->pid);
    s->in_fd = pin[1]; pin[1] = -1;
    s->in_hold = pin[0]; pin[0] = -1;
    s->out_fd = pout[0]; pout[0] = -1;
    s->err_fd = perr[0]; perr[0] = -1;
    mcp__nonblock(s->in_fd); mcp__nonblock(s->out_fd); mcp__nonblock(s->err_fd);
    s->exited = s->reaped = 0;
out:
    mcp__close_fd(&pin[0]); mcp__close_fd(&pin[1]); mcp__close_fd(&pout[0]); mcp__close_fd(&pout[1]);
    mcp__close_fd(&perr[0]); mcp__close_fd(&perr[1]); mcp__close_fd(&prep[0]); mcp__close_fd(&prep[1]);
    if (d->env) MCP_FREE(env, NULL);
    MCP_FREE(argv, NULL);
    MCP_FREE(exe, NULL);
    return st;
}

/* Has the child exited? Looks without reaping, so its pid (and process group id) stays
   reserved until we have signalled the group. */
static int mcp__stdio_exited(mcp__stdio *s)
{
    siginfo_t si;
    if (!s->pid || s->exited) return 1;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == ECHILD) { s->exited = s->reaped = 1; s->wstatus = -1; }  /* reaped elsewhere */
        return s->exited;
    }
    if (si.si_pid == s->pid) s->exited = 1;
    return s->exited;
}

/* Keeps the last MCP__TAIL bytes of stderr. */
static void mcp__tail_add(mcp__stdio *s, const char *p, size_t n)
{
    if (n >= MCP__TAIL) { memcpy(s->tail, p + n - MCP__TAIL, MCP__TAIL); s->tail_len = MCP__TAIL; return; }
    if (s->tail_len + n > MCP__TAIL) {
        size_t drop = s->tail_len + n - MCP__TAIL;
        memmove(s->tail, s->tail + drop, s->tail_len - drop);
        s->tail_len -= drop;
    }
    memcpy(s->tail + s->tail_len, p, n);
    s->tail_len += n;
}

static void mcp__stdio_signal(mcp__stdio *s, int sig)
{
    if (s->pid > 0 && !s->reaped) kill(-s->pid, sig);   /* the whole process group */
}


/* The end of the connection, reported once; the client then closes the transport. */
static void mcp__stdio_broken(mcp__stdio *s, mcp_status st, const char *why)
{
    if (s->down) return;
    s->down = 1;
    mcp__tell(s->c, NULL, MCP_TEV_BROKEN, -1, st, "%s", why);   /* "": CLOSED says how it ended */
}

/* A write to the child's stdin failed for good (not EPIPE: we hold a read end; an I/O error
   of the system). Its output may still hold answers, so only our writing end closes here. */
static void mcp__stdin_broken(mcp__stdio *s, long r)
{
    mcp__close_fd(&s->in_fd); mcp__close_fd(&s->in_hold);
    s->out.len = s->out_off = 0;
    s->stdin_gone = mcp_time_ms() + 100;         /* answers already on their way may still come */
    MCP__TP_LOG(s->c, s->d, "Writing to the server's standard input failed (%s); nothing more can be sent to it.",
                r < 0 ? strerror(errno) : "write returned 0");
}

/* Writes queued bytes to the child's stdin until it would block. */
static void mcp__flush(mcp__stdio *s)
{
    long r;
    while (s->in_fd >= 0 && s->out_off < s->out.len) {
        r = (long)write(s->in_fd, s->out.data + s->out_off, s->out.len - s->out_off);
        if (r > 0) { s->out_off += (size_t)r; continue; }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        mcp__stdin_broken(s, r);
    }
    if (s->out_off == s->out.len) s->out.len = s->out_off = 0;
    else if (s->out_off >= s->out.len - s->out_off) {  /* amortised: move the rest down */
        memmove(s->out.data, s->out.data + s->out_off, s->out.len - s->out_off);
        s->out.len -= s->out_off; s->out_off = 0;
    }
}

/* Queues a message and the newline that frames it. Requests wait for the next io, which
   writes everything queued at once, unless MCP__OUT_BATCH bytes wait already (a burst of
   calls then costs a write per 16 KB, not a buffer the size of the burst); other messages
   go out now. */
static mcp_status mcp__stdio_send(void *tp, const char *text, size_t len, int64_t id, const char *headers,
                                  unsigned how, mcp_error *err)
{
    mcp__stdio *s = (mcp__stdio *)tp;
    size_t waiting = s->out.len - s->out_off, most = s->d->max_queued;
    (void)headers;
    if (s->in_fd < 0 || s->down || s->step) return mcp__fail(err, MCP_ERR_CLOSED, "Transport closed");
    if (!(how & MCP_SEND_NOW) && waiting > most)
        return mcp__fail(err, MCP_ERR_LIMIT, "The server has not read the last %lu bytes of requests sent to it "
                         "(is it still reading its standard input?), so this request was not sent; the limit "
                         "is mcp_client_desc.max_queued (%lu bytes).", (unsigned long)waiting, (unsigned long)most);
    if (mcp_buf_append(&s->out, text, len) != MCP_OK || mcp_buf_append(&s->out, "\n", 1) != MCP_OK)
        return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory sending a message.");
    if (id >= 0) s->inflight++;
    if ((how & MCP_SEND_NOW) || s->out.len >= MCP__OUT_BATCH) mcp__flush(s);
    return MCP_OK;
}

static void mcp__stdio_abandon(void *tp, int64_t id)
{
    mcp__stdio *s = (mcp__stdio *)tp;
    if (id >= 0 && s->inflight) s->inflight--;
}

static void mcp__stderr_lines(mcp__stdio *s, const char *p, size_t n)
{
    const char *nl;
    size_t seg, room;
    mcp_tev ev;
    while (n) {
        nl = (const char *)memchr(p, '\n', n);
        seg = nl ? (size_t)(nl - p) : n;
        room = 4096 - s->errline.len;
        if (seg > room) seg = room;                /* a long line goes out in 4096-byte pieces */
        mcp_buf_append(&s->errline, p, seg);
        p += seg; n -= seg;
        if (nl && p == nl) { p++; n--; }           /* the line ends here */
        else if (!n) break;                        /* unfinished: wait for more (even when full) */
        if (s->errline.len && s->errline.data[s->errline.len - 1] == '\r') s->errline.len--;
        if (s->d->on_stderr) {
            memset(&ev, 0, sizeof ev);
            ev.text = s->errline.data ? s->errline.data : ""; ev.len = s->errline.len;
            mcp__tell(s->c, &ev, MCP_TEV_STDERR, -1, MCP_OK, NULL);
        }
        s->errline.len = 0;
    }
}

static void mcp__stdio_read_err(mcp__stdio *s)
{
    char buf[4096];
    long r;
    int rounds;
    for (rounds = 0; rounds < 64 && s->err_fd >= 0; rounds++) {
        r = (long)read(s->err_fd, buf, sizeof buf);
        if (r > 0) {
            s->stderr_bytes += (uint64_t)r;
            mcp__tail_add(s, buf, (size_t)r);
            mcp__stderr_lines(s, buf, (size_t)r);
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (s->errline.len) mcp__stderr_lines(s, "\n", 1);   /* the last line, unfinished */
        mcp__close_fd(&s->err_fd);                    /* EOF or error */
    }
}

static void mcp__stdio_line(mcp__stdio *s, const char *line, size_t len)
{
    mcp_tev ev;
    unsigned n;
    memset(&ev, 0, sizeof ev);
    ev.text = line; ev.len = len;
    n = (unsigned)mcp__tell(s->c, &ev, MCP_TEV_MESSAGE, -1, MCP_OK, NULL);   /* the answers in it */
    s->inflight -= n < s->inflight ? n : s->inflight;
}

/* Returns 1 if it read anything (or found the end), 0 if there was nothing to read. */
static int mcp__stdio_read_out(mcp__stdio *s)
{
    long r;
    size_t off, used, len;
    const char *line;
    int rounds, got = 0;
    mcp_status st;
    char why[120];
    if (!s->rbuf && !(s->rbuf = (char *)MCP_MALLOC(MCP__RBUF, NULL))) return 0;
    for (rounds = 0; rounds < 16 && s->out_fd >= 0; rounds++) {
        r = (long)read(s->out_fd, s->rbuf, MCP__RBUF);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return got;
        if (r <= 0) {
            if (mcp_jsonl_finish(&s->fr, &line, &len) != MCP_OK && len)    /* a message lost: counted */
                mcp__tell(s->c, NULL, MCP_TEV_LOG, -1, MCP_ERR_PARSE, "The server's output ended in the middle "
                          "of a message; %lu bytes were dropped.", (unsigned long)len);
            mcp__close_fd(&s->out_fd);
            mcp__stdio_broken(s, MCP_ERR_CLOSED, "");
            return 1;
        }
        got = 1;
        for (off = 0; off < (size_t)r; off += used) {
            st = mcp_jsonl_feed(&s->fr, s->rbuf + off, (size_t)r - off, &used);
            while (mcp_jsonl_next(&s->fr, &line, &len) == MCP_OK) mcp__stdio_line(s, line, len);
            if (st < 0) {
                snprintf(why, sizeof why, "the server sent a message longer than the limit of %lu bytes",
                         (unsigned long)(s->fr.max_line ? s->fr.max_line : MCP_JSONL_MAX_LINE));
                mcp__stdio_broken(s, st, why);
                return 1;
            }
        }
        /* drained, and no message half-read: poll says when more comes (a message the pipe
           handed over in pieces is worth one more read now) */
        if ((size_t)r < MCP__RBUF && !mcp__jsonl_pending(&s->fr)) return 1;
    }
    return got;
}

/* The descriptors to watch: while closing, stdout is no longer read, and in the GROUP step
   the pidfd (of a reaped child) is not watched. */
static int mcp__stdio_pollfds(void *tp, mcp_pollfd *fds, int max)
{
    const mcp__stdio *s = (const mcp__stdio *)tp;
    int fd[4], ev[4], k = 0, i, n = 0;
    if ((s->down && !s->step) || s->step == MCP__SC_DONE) return 0;
    if (s->out_fd >= 0 && !s->step) { fd[k] = s->out_fd; ev[k++] = POLLIN; }
    if (s->err_fd >= 0) { fd[k] = s->err_fd; ev[k++] = POLLIN; }
    if (s->in_fd >= 0 && s->out_off < s->out.len) { fd[k] = s->in_fd; ev[k++] = POLLOUT; }
    if (s->pidfd >= 0 && s->step != MCP__SC_GROUP) { fd[k] = s->pidfd; ev[k++] = POLLIN; }
    for (i = 0; i < k && n < max; i++, n++)
        if (fds) { fds[n].fd = fd[i]; fds[n].events = (short)ev[i]; }
    return n;
}

/* Without a pidfd the child is looked at now and then; a failed stdin has a grace period. */
static int64_t mcp__stdio_due(void *tp)
{
    const mcp__stdio *s = (const mcp__stdio *)tp;
    int64_t due = -1;
    if (s->step == MCP__SC_DONE) return -1;
    if (s->step) return s->pidfd < 0 || s->step == MCP__SC_GROUP ? mcp_time_ms() + 10 : s->step_end;
    if (s->down) return -1;
    if (s->stdin_gone) due = s->stdin_gone;
    if (s->pid > 0 && s->pidfd < 0) {
        int64_t check = mcp_time_ms() + 250;
        if (due < 0 || check < due) due = check;
    }
    return due;
}

/* One round of I/O. The child's exit is noticed through its pidfd, or by asking waitid after
   a wait capped at 250 ms; its last output is read before the end is reported. */
static void mcp__stdio_io(void *tp, int wait)
{
    mcp__stdio *s = (mcp__stdio *)tp;
    struct pollfd pf[4];
    mcp_pollfd f[4];
    int n, i, r, exited = 0;
    if (s->down || s->step) return;
    mcp__flush(s);                                     /* requests queued since the last io */
    if (s->stdin_gone) {                               /* the flush may have just found it gone */
        int64_t g = s->stdin_gone - mcp_time_ms();
        if (g < 0) g = 0;
        if (wait < 0 || g < wait) wait = (int)g;
    }
    /* A read before the poll: where client and server share a CPU, writing the request has
       usually let the server run and answer already, and the read spares a poll; where they
       do not, the failed read runs while the server works. Every 16th such answer still goes
       on to a poll, without waiting, for stderr and the child's exit. */
    if (s->inflight && s->out_fd >= 0 && mcp__stdio_read_out(s)) {
        if (s->down || (++s->early & 15)) return;
        wait = 0;
    }
    n = mcp__stdio_pollfds(s, f, 4);
    for (i = 0; i < n; i++) { pf[i].fd = f[i].fd; pf[i].events = f[i].events; pf[i].revents = 0; }
    if (s->pidfd < 0 && (wait < 0 || wait > 250)) wait = 250;
    r = poll(pf, (nfds_t)n, wait);
    for (i = 0; r > 0 && i < n && !s->down; i++) {
        if (!pf[i].revents) continue;
        if (pf[i].fd == s->in_fd) mcp__flush(s);
        else if (pf[i].fd == s->err_fd) mcp__stdio_read_err(s);
        else if (pf[i].fd == s->out_fd) mcp__stdio_read_out(s);
        else if (pf[i].fd == s->pidfd) exited = 1;
    }
    if (s->down) return;
    if (s->pidfd < 0 || s->stdin_gone) exited = mcp__stdio_exited(s);
    if (exited || (s->stdin_gone && mcp_time_ms() >= s->stdin_gone)) {
        mcp__stdio_read_out(s);                        /* answers written before it went */
        mcp__stdio_broken(s, MCP_ERR_CLOSED, "");
    }
}

/* "exited with status 1", "was killed by signal 9 (SIGKILL)" */
static void mcp__exit_words(const mcp__stdio *s, char *out, size_t n)
{
    static const char *const names[] = { "", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM" };
    int sig;
    if (!s->reaped || s->wstatus < 0) { snprintf(out, n, "exited"); return; }
    if (WIFEXITED(s->wstatus)) { snprintf(out, n, "exited with status %d", WEXITSTATUS(s->wstatus)); return; }
    sig = WIFSIGNALED(s->wstatus) ? WTERMSIG(s->wstatus) : 0;
    if (sig > 0 && sig < 16) snprintf(out, n, "was killed by signal %d (%s)", sig, names[sig]);
    else snprintf(out, n, "was killed by signal %d", sig);
}

/* The most telling stderr line(s): the last line mentioning an error (and what follows it
   on the same line), or else the last non-empty line. */
static void mcp__stderr_quote(const mcp__stdio *s, char *out, size_t n)
{
    const char *b = s->tail, *e = s->tail + s->tail_len, *ls, *le, *best = NULL, *best_end = NULL;
    const char *last = NULL, *last_end = NULL, *p;
    size_t len;
    out[0] = 0;
    for (ls = b; ls < e; ls = le + 1) {
        le = (const char *)memchr(ls, '\n', (size_t)(e - ls));
        if (!le) le = e;
        for (p = ls; p < le && (*p == ' ' || *p == '\t' || *p == '\r'); p++) {}
        if (p == le) continue;
        last = p; last_end = le;
        if (le - p >= 3 && !memcmp(p, "at ", 3)) continue;        /* stack frames */
        for (; p + 5 <= le; p++)
            if ((p[0] | 32) == 'e' && (p[1] | 32) == 'r' && (p[2] | 32) == 'r' && (p[3] | 32) == 'o' && (p[4] | 32) == 'r') {
                best = last; best_end = le; break;
            }
    }
    if (!best) { best = last; best_end = last_end; }
    if (!best) return;
    while (best_end > best && (best_end[-1] == '\r' || best_end[-1] == ' ')) best_end--;
    len = (size_t)(best_end - best);
    if (len >= n) len = n - 1;
    memcpy(out, best, len);
    out[len] = 0;
}

/* The close is over: the last of stderr, every fd, and the report of how the server ended. */
static void mcp__stdio_done(mcp__stdio *s)
{
    char how[64], quote[300];
    mcp_tev ev;
    s->step = MCP__SC_DONE;
    mcp__stdio_read_err(s);
    mcp__close_fd(&s->out_fd); mcp__close_fd(&s->err_fd); mcp__close_fd(&s->pidfd);
    mcp__exit_words(s, how, sizeof how);
    mcp__stderr_quote(s, quote, sizeof quote);
    memset(&ev, 0, sizeof ev);
    ev.server_ended = !s->signalled;
    ev.detail = how;
    ev.body = quote; ev.body_len = strlen(quote);
    mcp__tell(s->c, &ev, MCP_TEV_CLOSED, -1, MCP_ERR_CLOSED, !s->signalled ? "the server %s" : s->stdin_gone ?
              "writing to its standard input failed" : "the server closed its standard output", how);
}

static void mcp__stdio_step_to(mcp__stdio *s, int step, int64_t ms)
{
    s->step = step;
    s->step_end = mcp_time_ms() + ms;
}

/* The close, one step at a time: stdin first, then SIGTERM, then SIGKILL to the group, each
   after a wait; the leader reaped, what the server left in its process group (a shell's or
   npx's children) gets SIGTERM, and SIGKILL if it is still there after the wait. A group id
   stays reserved while any member lives, so kill(-pid) cannot reach an unrelated process.
   stderr is drained meanwhile. */
static int mcp__stdio_close(void *tp, int now_, int wait)
{
    mcp__stdio *s = (mcp__stdio *)tp;
    struct pollfd pf[2];
    int n = 0, group, status = 0, ms = now_ ? 0 : s->d->close_timeout_ms;
    int64_t now, left;
    if (s->step == MCP__SC_DONE) return 0;
    if (!s->step) {                                    /* begins: what is queued, if it fits */
        if (!now_) mcp__flush(s);
        mcp__close_fd(&s->in_fd); mcp__close_fd(&s->in_hold);
        if (s->pid <= 0) { mcp__stdio_done(s); return 0; }
        mcp__stdio_step_to(s, MCP__SC_EOF, ms);
    }
    group = s->step == MCP__SC_GROUP;
    now = mcp_time_ms(); left = s->step_end - now;
    if (!group && !mcp__stdio_exited(s) && left > 0 && wait != 0) {
        if (wait < 0 || wait > left) wait = (int)left;
        if (s->pidfd < 0 && wait > 10) wait = 10;      /* nothing to poll for the exit: look often */
        if (s->err_fd >= 0) { pf[n].fd = s->err_fd; pf[n].events = POLLIN; pf[n].revents = 0; n++; }
        if (s->pidfd >= 0) { pf[n].fd = s->pidfd; pf[n].events = POLLIN; pf[n].revents = 0; n++; }
        poll(pf, (nfds_t)n, wait);
        now = mcp_time_ms();
    } else if (group && kill(-s->pid, 0) == 0 && left > 0 && wait != 0) {
        poll(NULL, 0, wait < 0 || wait > 5 ? 5 : wait);
        now = mcp_time_ms();
    }
    mcp__stdio_read_err(s);                            /* always: an outside poll may have seen it */
    if (!group && (mcp__stdio_exited(s) || (s->step == MCP__SC_KILL && now >= s->step_end))) {
        if (s->exited && !s->reaped) {
            while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) {}
            s->wstatus = status; s->reaped = 1;
        }
        if (kill(-s->pid, 0) < 0) { mcp__stdio_done(s); return 0; }
        kill(-s->pid, SIGTERM);                          /* stragglers */
        mcp__stdio_step_to(s, MCP__SC_GROUP, s->d->close_timeout_ms);
        return 1;
    }
    if (group && kill(-s->pid, 0) < 0) { mcp__stdio_done(s); return 0; }
    if (now < s->step_end) return 1;
    if (group) { kill(-s->pid, SIGKILL); mcp__stdio_done(s); return 0; }
    if (s->step == MCP__SC_EOF) {
        s->signalled = 1;
        mcp__stdio_signal(s, SIGTERM);
        mcp__stdio_step_to(s, MCP__SC_TERM, s->d->close_timeout_ms);
    } else {
        mcp__stdio_signal(s, SIGKILL);
        mcp__stdio_step_to(s, MCP__SC_KILL, 5000);
    }
    return 1;
}

static void mcp__stdio_free(void *tp)
{
    mcp__stdio *s = (mcp__stdio *)tp;
    if (!s) return;
    mcp__close_fd(&s->in_fd); mcp__close_fd(&s->in_hold); mcp__close_fd(&s->out_fd);
    mcp__close_fd(&s->err_fd); mcp__close_fd(&s->pidfd);
    mcp_jsonl_free(&s->fr);
    mcp_buf_free(&s->out); mcp_buf_free(&s->errline);
    MCP_FREE(s->rbuf, NULL);
    MCP_FREE(s, NULL);
}

static void *mcp__stdio_open(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err)
{
    mcp__stdio *s = (mcp__stdio *)MCP_MALLOC(sizeof *s, NULL);
    (void)user;
    if (!s) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory starting the server."); return NULL; }
    memset(s, 0, sizeof *s);
    s->c = c; s->d = d;
    s->fr.max_line = d->max_message;
    if (mcp__spawn(s, d, err) != MCP_OK) { mcp__stdio_free(s); return NULL; }
    return s;
}

static long mcp__stdio_pid(void *tp)
{
    const mcp__stdio *s = (const mcp__stdio *)tp;
    return s->pid > 0 && !s->reaped ? (long)s->pid : 0;
}

static void mcp__stdio_stats(void *tp, mcp_client_stats *st)
{
    st->stderr_bytes += ((const mcp__stdio *)tp)->stderr_bytes;
}

/* What it needs of a description, asked by mcp_client_new before anything starts. */
static int mcp__stdio_check(const mcp_client_desc *d, mcp_error *err)
{
    if (d->command && *d->command) return 1;
    mcp__fail(err, MCP_ERR_INVALID, "The stdio transport needs desc.command, the server to run.");
    return 0;
}

static const mcp_transport mcp__stdio_transport = {
    0, mcp__stdio_open, mcp__stdio_send, mcp__stdio_pollfds, mcp__stdio_due, mcp__stdio_io, mcp__stdio_abandon,
    mcp__stdio_close, mcp__stdio_free, NULL, NULL, NULL, mcp__stdio_pid, mcp__stdio_stats, NULL, NULL
};
#endif /* MCP_NO_STDIO */
#ifndef MCP_NO_HTTP
/* ---- >>transport.http  Streamable HTTP (and >>transport.sse, HTTP+SSE, which shares it) ------
   Every message is an exchange (an xfer) on a connection (a conn): a POST of a message, a GET
   event stream (listener, resumption, or the HTTP+SSE stream), a DELETE. Connections are
   non-blocking, close-on-exec, TCP_NODELAY, never raise SIGPIPE, and are kept alive and
   reused; each exchange in flight has its own. Names are resolved with getaddrinfo, which
   blocks: the first connect pays it once, later ones reuse the answer. The transport keeps
   the session id (Mcp-Session-Id) and follows redirects; whatever happens to a request is
   reported (FAILED, SESSION_LOST, BROKEN) and the client decides. */

enum { MCP__X_POST = 1, MCP__X_LISTEN, MCP__X_RESUME, MCP__X_SSE_GET, MCP__X_DELETE };
#define MCP__HTTP_STREAMS 8              /* long-lived streams at once: GET, HTTP+SSE, listen */
#define MCP__IDLE_REUSE_MS 4000          /* an idle connection older than this is not reused */
enum { MCP__K_CONNECT = 1, MCP__K_WRITE, MCP__K_READ, MCP__K_IDLE };

typedef struct mcp__xfer mcp__xfer;

typedef struct mcp__conn {
    int fd, state, reused, want_write, want_read, pending;
    void *tls;                           /* the TLS hook's session, or NULL */
    mcp__xfer *x;                        /* the exchange on it; NULL when idle */
    mcp_http_resp resp;
    int64_t deadline;                    /* of the connect (and TLS handshake) */
    int64_t idle_since;
    int idle_max;                        /* ms it may stay idle and still be reused */
    unsigned ugen;                       /* the endpoint origin it was opened to */
    size_t got;                          /* response bytes for this exchange */
    struct mcp__conn *next;
} mcp__conn;

struct mcp__xfer {
    int kind;
    int64_t id;                          /* the request it carries or resumes; -1: none */
    mcp_buf body;                        /* the JSON-RPC message of a POST */
    mcp_buf hdrs;                        /* 2026-07-28 request headers, "\0"-separated */
    mcp_buf req;                         /* the HTTP request, as sent */
    size_t sent;
    mcp__conn *conn;
    int status, sse, json, bad_ct, got_response, retried, attempts;
    int lost;                            /* answered 404 in its session: reported at its end */
    int parked;                          /* waits for resume or abandon (SESSION_LOST, BROKEN) */
    int unauth;                          /* parked after 401/403 (UNAUTHORIZED): goes again as it was */
    int repeatable;                      /* MCP_SEND_REPEATABLE: safe to send twice */
    int stream;                          /* long-lived (GET stream, HTTP+SSE, listen): own budget */
    int hops;                            /* redirects followed */
    mcp_http_url *url;                   /* where a same-origin redirect sent it; the endpoint
                                            once it is answered there. NULL: the endpoint */
    unsigned had_session;                /* the session it was sent in (its sgen), 0: none */
    mcp_sse sp;
    mcp_buf in;                          /* a JSON body, or the start of an error body */
    char *last_id;                       /* resumption: the Last-Event-ID to send */
    int64_t at;                          /* start no earlier than this (resumption), 0: now */
    mcp__xfer *next;
};

/* The steps of the close: SENT (messages already sent, with no answer to wait for, arrive)
   -> DELETE (the session's) -> DONE. */
enum { MCP__HC_OPEN = 0, MCP__HC_SENT, MCP__HC_DELETE, MCP__HC_DONE };

typedef struct mcp__ht {
    mcp_client *c;                       /* where events go */
    const mcp_client_desc *d;
    int sse;                             /* HTTP+SSE: one GET stream; POSTs go to its endpoint */
    const char *version;                 /* agreed (ready): MCP-Protocol-Version since 2025-06-18 */
    int modern;                          /* 2026-07-28: no session, no GET stream */
    int down;                            /* the end was reported (BROKEN): only the close is left */
    int step, close_now; int64_t step_end;   /* the close (MCP__HC_*) */
    uint64_t st_resent, st_redirects;
    mcp_http_url url, post;              /* the endpoint; HTTP+SSE: where to POST */
    int have_post, listen_off, listen_attempts;
    int cross;                           /* redirected to another origin: no desc.headers */
    unsigned ugen;                       /* counts the endpoint's origins (redirects) */
    struct addrinfo *ai;                 /* the endpoint's addresses, tried in order */
    char *session;                       /* Mcp-Session-Id */
    unsigned sgen;                       /* counts the sessions, so a late 404 is told apart */
    char *authz;                         /* "Authorization: ..." (authorize), or NULL */
    int listen_unauth;                   /* the GET stream met 401: it opens again once authorized */
    mcp__conn *conns;
    mcp__xfer *xfers;
    mcp__xfer *listener;
    char *rbuf;
    struct pollfd *pf;                   /* mcp__ht_io's poll set, one per busy connection */
    mcp__conn **pk;
    int npf;
} mcp__ht;

/* The end was reported and no close has begun: no I/O until it does. */
static int mcp__ht_stopped(const mcp__ht *t) { return t->down && !t->step; }

static int mcp__sock_connect(const struct addrinfo *a)
{
    int fd, one = 1, e;
#ifdef SOCK_CLOEXEC
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
#else
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
    if (fd < 0) return -1;
    mcp__nonblock(fd);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#ifdef SO_NOSIGPIPE
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS && errno != EINTR) {
        e = errno; close(fd); errno = e;
        return -1;
    }
    return fd;
}

/* The addresses of a URL's host (getaddrinfo, which blocks): 0, or getaddrinfo's error. */
static int mcp__resolve(const mcp_http_url *u, struct addrinfo **ai)
{
    struct addrinfo hints;
    char port[16];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC; hints.ai_socktype = SOCK_STREAM; hints.ai_flags = AI_NUMERICSERV;
    snprintf(port, sizeof port, "%u", u->port);
    *ai = NULL;
    return getaddrinfo(u->host, port, &hints, ai);
}

/* The TLS hook's handshake on a connected socket: it blocks, so the socket blocks for it,
   bounded by deadline (mcp_time_ms()), and is non-blocking again after. NULL: failed (te). */
static void *mcp__tls_open(const mcp_tls *tls, int fd, const char *host, int64_t deadline, mcp_error *te)
{
    struct timeval tv;
    int64_t left = deadline - mcp_time_ms();
    void *session;
    if (left < 1) left = 1;
    tv.tv_sec = (long)(left / 1000); tv.tv_usec = (long)(left % 1000) * 1000;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    memset(te, 0, sizeof *te);
    session = tls->open(tls->user, fd, host, te);
    mcp__nonblock(fd);
    return session;
}

static long mcp__sock_send(int fd, const char *p, size_t n)
{
#ifdef MSG_NOSIGNAL
    return (long)send(fd, p, n, MSG_NOSIGNAL);
#else
    return (long)send(fd, p, n, 0);                 /* SO_NOSIGPIPE is set on the socket */
#endif
}
static void mcp__x_stream_end(mcp__ht *t, mcp__xfer *x, const char *why);
static void mcp__x_start(mcp__ht *t, mcp__xfer *x);

static void mcp__x_free(mcp__xfer *x)
{
    mcp_buf_free(&x->body); mcp_buf_free(&x->req); mcp_buf_free(&x->in); mcp_buf_free(&x->hdrs);
    mcp_sse_free(&x->sp);
    MCP_FREE(x->last_id, NULL);
    if (x->url) { mcp_http_url_free(x->url); MCP_FREE(x->url, NULL); }
    MCP_FREE(x, NULL);
}

static mcp__xfer *mcp__x_new(mcp__ht *t, int kind, int64_t id)
{
    mcp__xfer *x = (mcp__xfer *)MCP_MALLOC(sizeof *x, NULL), **pp;
    if (!x) return NULL;
    memset(x, 0, sizeof *x);
    x->kind = kind; x->id = id;
    x->stream = kind == MCP__X_LISTEN || kind == MCP__X_SSE_GET;
    x->sp.max_event = t->d->max_message;
    for (pp = &t->xfers; *pp; pp = &(*pp)->next) {}       /* FIFO: started in order */
    *pp = x;
    return x;
}

static void mcp__x_unlink(mcp__ht *t, mcp__xfer *x)
{
    mcp__xfer **pp;
    for (pp = &t->xfers; *pp; pp = &(*pp)->next)
        if (*pp == x) { *pp = x->next; break; }
    if (t->listener == x) t->listener = NULL;
    x->next = NULL;
}

static void mcp__conn_close(mcp__ht *t, mcp__conn *k)
{
    mcp__conn **pp;
    for (pp = &t->conns; *pp; pp = &(*pp)->next)
        if (*pp == k) { *pp = k->next; break; }
    if (k->tls && t->d->tls && t->d->tls->close) t->d->tls->close(k->tls);
    if (k->fd >= 0) close(k->fd);
    if (k->x) k->x->conn = NULL;
    mcp_http_resp_free(&k->resp);
    MCP_FREE(k, NULL);
}

/* How long an idle connection may wait to be reused: a second less than the server's
   "Keep-Alive: timeout=N" (half of it when that is short), else 4 s, under the 5 s after
   which Node's servers close theirs: a request is never written into a connection the
   server is about to close. */
static int mcp__idle_max(const char *ka)
{
    const char *p = ka ? strstr(ka, "timeout=") : NULL;
    long t = 0;
    if (!p) return MCP__IDLE_REUSE_MS;
    for (p += 8; *p >= '0' && *p <= '9' && t < 100000; p++) t = t * 10 + (*p - '0');
    t *= 1000;
    t -= t < 2000 ? t / 2 : 1000;
    return t < MCP__IDLE_REUSE_MS ? (int)t : MCP__IDLE_REUSE_MS;
}

/* An exchange is over: off its connection (closed unless it may carry another), off the list. */
static void mcp__x_drop(mcp__ht *t, mcp__xfer *x, int keep_conn)
{
    mcp__conn *k = x->conn, *i;
    int idle = 0;
    mcp__x_unlink(t, x);
    x->conn = NULL;
    if (!k) return;
    k->x = NULL;
    for (i = t->conns; i; i = i->next) idle += i->state == MCP__K_IDLE;
    if (keep_conn && k->resp.keep_alive && idle < 4 && !t->down && k->ugen == t->ugen) {
        k->state = MCP__K_IDLE; k->reused = 0; k->idle_since = mcp_time_ms();
        k->idle_max = mcp__idle_max(mcp_http_resp_header(&k->resp, "keep-alive", 0));
    }
    else mcp__conn_close(t, k);
}

static void mcp__host_port(const mcp__ht *t, char *out, size_t n)
{
    const mcp_http_url *u = &t->url;
    snprintf(out, n, "%s%s%s:%u", u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "", u->port);
}

/* A request's exchange is over without an answer (id -1: the transport), and why (body: the start
   of an HTTP error body, which may hold a JSON-RPC error). */
static void mcp__ht_failed(mcp__ht *t, int64_t id, mcp_status st, int http, int sys, const mcp_buf *body,
                           const char *msg)
{
    mcp_tev ev;
    memset(&ev, 0, sizeof ev);
    ev.http_status = http; ev.sys_errno = sys;
    if (body && body->len) { ev.body = body->data; ev.body_len = body->len; }
    mcp__tell(t->c, &ev, id < 0 ? MCP_TEV_BROKEN : MCP_TEV_FAILED, id, st, "%s", msg);
}

/* The end of the transport (the HTTP+SSE stream failed or ended, the endpoint refused, no
   memory), reported once. */
static void mcp__ht_broken(mcp__ht *t, mcp_status st, int http, int sys, const char *msg)
{
    if (t->down || t->step) return;                   /* closing: its end is on its way */
    t->down = 1;
    mcp__ht_failed(t, -1, st, http, sys, NULL, msg);
}

/* The exchange failed below HTTP (connect, send, a broken connection): its request, or the
   transport for the HTTP+SSE stream, says why. */
static void mcp__x_fail(mcp__ht *t, mcp__xfer *x, mcp_status st, int sys, const char *fmt, ...)
    MCP__PRINTF(5, 6);
static void mcp__x_fail(mcp__ht *t, mcp__xfer *x, mcp_status st, int sys, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    int64_t id = x->id;
    int kind = x->kind;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcp__x_drop(t, x, 0);
    mcp__x_free(x);
    if (kind == MCP__X_SSE_GET) {                        /* before the endpoint: its requests */
        for (x = t->xfers; x && !t->have_post; x = x->next)   /* (initialize) say why, */
            if (x->kind == MCP__X_POST && x->id >= 0) mcp__ht_failed(t, x->id, st, 0, sys, NULL, msg);
        mcp__ht_broken(t, MCP_ERR_CLOSED, 0, sys, msg);   /* and the transport ends */
    } else if (kind == MCP__X_LISTEN) MCP__TP_LOG(t->c, t->d, "The GET event stream failed: %s", msg);
    else if (id >= 0) mcp__ht_failed(t, id, st, 0, sys, NULL, msg);
    else if (kind == MCP__X_POST) MCP__TP_LOG(t->c, t->d, "A message could not be delivered to the server: %s", msg);
}

/* The HTTP request for an exchange, with the headers the protocol asks for. */
static mcp_status mcp__x_request(mcp__ht *t, mcp__xfer *x, mcp_error *err)
{
    const char *h[40], *method = "GET", *p;
    char ver[64], sid[1100], lei[1100];
    int n = 0;
    const mcp_http_url *u = x->url ? x->url : x->kind == MCP__X_POST && t->sse ? &t->post
                          : &t->url;
    if (x->kind == MCP__X_POST) {
        method = "POST";
        h[n++] = "Content-Type: application/json";
        h[n++] = "Accept: application/json, text/event-stream";
    } else if (x->kind == MCP__X_DELETE) {
        method = "DELETE";
    } else {
        h[n++] = "Accept: text/event-stream";
    }
    if (x->hdrs.len) {                                   /* 2026-07-28: version, method, name, params */
        for (p = x->hdrs.data; p < x->hdrs.data + x->hdrs.len && n < 36; p += strlen(p) + 1) h[n++] = p;
    } else if (!t->sse && t->version && strcmp(t->version, "2025-06-18") >= 0) {
        snprintf(ver, sizeof ver, "MCP-Protocol-Version: %s", t->version);   /* since 2025-06-18 */
        h[n++] = ver;
    }
    x->had_session = t->session ? t->sgen : 0;
    if (t->session) { snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", t->session); h[n++] = sid; }
    if (x->last_id) { snprintf(lei, sizeof lei, "Last-Event-ID: %.1000s", x->last_id); h[n++] = lei; }
    if (t->authz && !t->cross) h[n++] = t->authz;        /* never to another origin */
    h[n] = NULL;
    x->req.len = 0;
    return mcp_http_write_request(&x->req, method, u, h, t->cross ? NULL : t->d->headers, x->body.data,
                                  x->body.len, err);
}

/* Connections busy with exchanges of x's class (requests, or long-lived streams) are under
   that class's budget, so 1,000 calls in flight hold at most max_connections sockets and a
   stream never takes the place of a call (nor calls the place of the streams). */
static int mcp__x_room(const mcp__ht *t, const mcp__xfer *x)
{
    const mcp__conn *k;
    int n = 0, max = x->stream ? MCP__HTTP_STREAMS : t->d->max_connections;
    for (k = t->conns; k; k = k->next) n += k->x && k->x->stream == x->stream;
    return n < max;
}

/* Is an exchange waiting for a connection that it could have now? */
static int mcp__x_startable(const mcp__ht *t)
{
    const mcp__xfer *x;
    int room[2] = { -1, -1 };
    for (x = t->xfers; x; x = x->next) {
        if (x->conn || x->parked || x->at || (x->kind == MCP__X_POST && t->sse && !t->have_post))
            continue;
        if (room[x->stream] < 0) room[x->stream] = mcp__x_room(t, x);
        if (room[x->stream]) return 1;
    }
    return 0;
}

static mcp__conn *mcp__conn_new(mcp__ht *t, mcp_error *err)
{
    mcp__conn *k = (mcp__conn *)MCP_MALLOC(sizeof *k, NULL), **pp;
    struct addrinfo *a;
    int e = 0;
    char hp[300];
    if (!k) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory opening a connection."); return NULL; }
    memset(k, 0, sizeof *k);
    for (a = t->ai; a; a = a->ai_next)
        if ((k->fd = mcp__sock_connect(a)) >= 0) break;
        else e = errno;
    if (!a) {
        mcp__host_port(t, hp, sizeof hp);
        MCP_FREE(k, NULL);
        mcp__fail(err, MCP_ERR_IO, "Could not connect to %s: %s.", hp, strerror(e));
        if (err) err->sys_errno = e;
        return NULL;
    }
    k->state = MCP__K_CONNECT;
    k->ugen = t->ugen;
    k->deadline = mcp_time_ms() + t->d->connect_timeout_ms;
    for (pp = &t->conns; *pp; pp = &(*pp)->next) {}   /* FIFO, as the exchanges */
    *pp = k;
    return k;
}

static void mcp__conn_write(mcp__ht *t, mcp__conn *k);

/* Puts an exchange on a connection: an idle one that is still open, or a new one. */
static void mcp__x_start(mcp__ht *t, mcp__xfer *x)
{
    mcp_error e;
    mcp__conn *k, *next;
    struct pollfd pf;
    if (x->conn || mcp__ht_stopped(t)) return;
    if (x->kind == MCP__X_POST && t->sse && !t->have_post) return;  /* no endpoint yet */
    if (!mcp__x_room(t, x)) return;                        /* waits its turn, in order */
    if (mcp__x_request(t, x, &e) != MCP_OK) { mcp__x_fail(t, x, e.status, 0, "%s", e.message); return; }
    x->sent = 0; x->status = 0; x->sse = x->json = 0; x->in.len = 0; x->at = 0;
    for (k = t->conns; k; k = next) {                /* reuse, unless the server closed it */
        next = k->next;
        if (k->state != MCP__K_IDLE) continue;
        /* too old, or readable (EOF, stray bytes): closed. A request written into a closed
           connection may only be sent again if it is safe to repeat (mcp__x_retry) */
        pf.fd = k->fd; pf.events = POLLIN; pf.revents = 0;
        if (mcp_time_ms() - k->idle_since >= k->idle_max || poll(&pf, 1, 0) != 0) { mcp__conn_close(t, k); continue; }
        break;
    }
    if (!k && !(k = mcp__conn_new(t, &e))) {
        mcp__x_fail(t, x, e.status, e.sys_errno, "%s", e.message);
        return;
    }
    k->x = x; x->conn = k; k->got = 0;
    mcp_http_resp_reset(&k->resp);
    k->resp.head_request = 0;
    k->resp.max_head = 0;
    if (k->state == MCP__K_IDLE) { k->state = MCP__K_WRITE; k->reused = 1; mcp__conn_write(t, k); }
}

/* After a failure on a connection that was reused and gave nothing back: the server may have
   closed it while idle, so the request goes again, once, on a new one: always when the
   request did not all go out (no server acts on half a request), else only when it is safe
   to repeat, as the server may have read it and acted. */
static int mcp__x_retry(mcp__ht *t, mcp__conn *k)
{
    mcp__xfer *x = k->x;
    mcp__conn *i, *next;
    if (!x || !k->reused || k->got || x->retried) return 0;
    if (x->sent == x->req.len && x->kind == MCP__X_POST && x->id >= 0 && !x->repeatable) return 0;
    x->retried = 1;
    t->st_resent++;
    k->x = NULL; x->conn = NULL;
    mcp__conn_close(t, k);
    for (i = t->conns; i; i = next) {                /* the others idled as long: new one */
        next = i->next;
        if (i->state == MCP__K_IDLE) mcp__conn_close(t, i);
    }
    mcp__x_start(t, x);
    return 1;
}

static void mcp__conn_write(mcp__ht *t, mcp__conn *k)
{
    mcp__xfer *x = k->x;
    long r;
    int e;
    char hp[300];
    k->want_write = 0; k->want_read = 0;
    while (x && x->sent < x->req.len) {
        r = k->tls ? t->d->tls->write(k->tls, x->req.data + x->sent, x->req.len - x->sent)
                   : mcp__sock_send(k->fd, x->req.data + x->sent, x->req.len - x->sent);
        if (r > 0) { x->sent += (size_t)r; continue; }
        if (!k->tls && r < 0 && errno == EINTR) continue;
        if (k->tls ? r == MCP_TLS_WANT_WRITE : r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k->tls && r == MCP_TLS_WANT_READ) { k->want_read = 1; return; }   /* e.g. renegotiation */
        e = k->tls ? 0 : errno;
        if (x->sent == 0 && mcp__x_retry(t, k)) return;
        mcp__host_port(t, hp, sizeof hp);
        mcp__x_fail(t, x, MCP_ERR_IO, e, "Could not send to %s: %s.", hp,
                    k->tls ? "the TLS layer failed" : strerror(e));
        return;
    }
    if (x) k->state = MCP__K_READ;
}

static void mcp__conn_connected(mcp__ht *t, mcp__conn *k)
{
    int e = 0;
    socklen_t l = sizeof e;
    char hp[300];
    mcp_error te;
    getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &e, &l);
    if (e) {
        mcp__host_port(t, hp, sizeof hp);
        mcp__x_fail(t, k->x, MCP_ERR_IO, e, "Could not connect to %s: %s.", hp, strerror(e));
        return;
    }
    if (t->url.https) {         /* the hook's handshake blocks, bounded by the connect time */
        k->tls = mcp__tls_open(t->d->tls, k->fd, t->url.host, k->deadline, &te);
        if (!k->tls) {
            mcp__host_port(t, hp, sizeof hp);
            mcp__x_fail(t, k->x, te.status < 0 ? te.status : MCP_ERR_IO, te.sys_errno,
                        "TLS handshake with %s failed%s%s", hp, te.message[0] ? ": " : ".", te.message);
            return;
        }
    }
    k->state = MCP__K_WRITE;
    mcp__conn_write(t, k);
}

/* A URL reference (an endpoint event, a Location) made absolute against base, and parsed:
   "//host/x", "/x" and "x" as RFC 3986 reads them (without dot segments). abs holds the
   text (mcp_buf_free it); u is set only on MCP_OK. */
static mcp_status mcp__url_resolve(const mcp_http_url *base, const char *ref, size_t n, mcp_buf *abs,
                                   mcp_http_url *u, mcp_error *err)
{
    const char *slash;
    char hp[300];
    memset(abs, 0, sizeof *abs);
    snprintf(hp, sizeof hp, "%s://%s%s%s:%u", base->https ? "https" : "http", base->ipv6 ? "[" : "",
             base->host, base->ipv6 ? "]" : "", base->port);
    if (n >= 2 && ref[0] == '/' && ref[1] == '/') {
        mcp_buf_append(abs, base->https ? "https:" : "http:", base->https ? 6 : 5);
    } else if (!(n > 7 && !memcmp(ref, "http://", 7)) && !(n > 8 && !memcmp(ref, "https://", 8))) {
        mcp_buf_append(abs, hp, strlen(hp));
        if (!n || ref[0] != '/') {                      /* relative: against the base's path */
            slash = strrchr(base->target, '/');
            mcp_buf_append(abs, base->target, slash ? (size_t)(slash - base->target) + 1 : 1);
        }
    }
    mcp_buf_append(abs, ref, n);
    if (mcp_buf_append(abs, "", 1) != MCP_OK) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
    return mcp_http_url_parse(u, abs->data, err);
}

static int mcp__same_origin(const mcp_http_url *a, const mcp_http_url *b)
{
    return a->https == b->https && a->port == b->port && mcp__ieq(a->host, strlen(a->host), b->host);
}

static const char *mcp__reason(int status, const mcp_http_resp *r)
{
    static const struct { int status; const char *text; } std[] = {
        { 301, "Moved Permanently" }, { 302, "Found" }, { 303, "See Other" }, { 307, "Temporary Redirect" },
        { 308, "Permanent Redirect" }, { 500, "Internal Server Error" }, { 502, "Bad Gateway" },
        { 503, "Service Unavailable" }, { 504, "Gateway Timeout" } };
    size_t i;
    if (r->reason && *r->reason) return r->reason;
    for (i = 0; i < sizeof std / sizeof std[0]; i++) if (std[i].status == status) return std[i].text;
    return "";
}

/* An HTML error page in words: its <title>, else its first text (tags, scripts and styles
   left out), whitespace collapsed. 0 when it has no text. */
static size_t mcp__html_text(const char *p, size_t len, char *out, size_t n)
{
    const char *e = p + len, *t = NULL, *q;
    size_t m = 0;
    int skip = 0;
    for (q = p; q + 7 <= e; q++)
        if (*q == '<' && mcp__ieq(q + 1, 6, "title>")) { t = q + 7; break; }
    for (q = t ? t : p; q < e && m + 1 < n; q++) {
        if (*q == '<') {
            if (t) break;                                 /* the title's end */
            skip = (e - q > 7 && mcp__ieq(q + 1, 6, "script")) || (e - q > 6 && mcp__ieq(q + 1, 5, "style"));
            while (q < e && *q != '>') q++;
            if (!skip && m && out[m - 1] != ' ') out[m++] = ' ';
            continue;
        }
        if (skip) continue;
        if ((unsigned char)*q <= ' ' || *q == 0x7F) { if (m && out[m - 1] != ' ') out[m++] = ' '; continue; }
        out[m++] = *q;
    }
    while (m && out[m - 1] == ' ') m--;
    out[m] = 0;
    return m;
}

/* "HTTP 401: <body> (WWW-Authenticate: ...)"; an HTML page: "HTTP 503 Service Unavailable:
   <its title>"; a redirect a POST cannot follow names the URL to use. */
static void mcp__ht_error_text(const mcp__ht *t, const mcp__xfer *x, const mcp_http_resp *r, char *out, size_t n)
{
    char body[240];
    size_t i, m = 0;
    const char *wa = mcp_http_resp_header(r, "www-authenticate", 0);
    const char *as = mcp_http_resp_header(r, "mcp-auth-server", 0);
    const char *ct = mcp_http_resp_header(r, "content-type", 0), *loc = mcp_http_resp_header(r, "location", 0);
    if (x->status >= 301 && x->status <= 303 && loc) {
        mcp_buf abs;
        mcp_http_url u;
        mcp_error e;
        const mcp_http_url *base = x->url ? x->url : &t->url;
        int ok = mcp__url_resolve(base, loc, strlen(loc), &abs, &u, &e) == MCP_OK;
        snprintf(out, n, "HTTP %d %s: the server redirects %s %s to %.200s, which a %s cannot follow (it "
                 "would become a GET); use that URL instead", x->status, mcp__reason(x->status, r),
                 x->kind == MCP__X_POST ? "POST" : x->kind == MCP__X_DELETE ? "DELETE" : "GET", base->target,
                 ok ? abs.data : loc, x->kind == MCP__X_POST ? "POST" : "request");
        if (ok) mcp_http_url_free(&u);
        mcp_buf_free(&abs);
        return;
    }
    if ((ct && !strncmp(ct, "text/html", 9)) || (x->in.len && x->in.data[0] == '<')) {
        if (mcp__html_text(x->in.data, x->in.len, body, sizeof body)) {
            snprintf(out, n, "HTTP %d %s: %s (an HTML page)", x->status, mcp__reason(x->status, r), body);
            return;
        }
    }
    for (i = 0; i < x->in.len && m + 1 < sizeof body; i++) {
        unsigned char ch = (unsigned char)x->in.data[i];
        if (ch < 0x20 || ch == 0x7F) ch = ' ';
        if (ch == ' ' && (m == 0 || body[m - 1] == ' ')) continue;
        body[m++] = (char)ch;
    }
    while (m && body[m - 1] == ' ') m--;
    body[m] = 0;
    snprintf(out, n, "HTTP %d: %s%s%s%s%s%s", x->status, m ? body : r->reason && *r->reason ? r->reason : "(no body)",
             wa ? " (WWW-Authenticate: " : "", wa ? wa : "", wa ? ")" : "",
             as ? " (Mcp-Auth-Server: " : "", as ? as : "");
    if (as && strlen(out) + 2 < n) strcat(out, ")");
}

/* An HTTP error's body may be a JSON-RPC error (2026-07-28 servers answer 400 with one):
   the call keeps its code and document, and the sentence names the code's meaning. */
static void mcp__x_take(mcp__ht *t, mcp__xfer *x, const char *text, size_t len)
{
    mcp_tev ev;
    memset(&ev, 0, sizeof ev);
    ev.text = text; ev.len = len;
    if (mcp__tell(t->c, &ev, MCP_TEV_MESSAGE, x->id, MCP_OK, NULL) && x->id >= 0) x->got_response = 1;
}

/* A bad endpoint event ends the transport (the connect, still waiting for it, says why). */
static void mcp__refuse_endpoint(mcp__ht *t, const char *fmt, ...) MCP__PRINTF(2, 3);
static void mcp__refuse_endpoint(mcp__ht *t, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcp__ht_broken(t, MCP_ERR_PROTOCOL, 0, 0, msg);
}

/* HTTP+SSE: the endpoint event names where to POST, resolved against the stream's URL; it
   must be the same origin. */
static void mcp__sse_endpoint(mcp__ht *t, const char *data, size_t n)
{
    const mcp_http_url *u = &t->url;
    mcp_buf abs;
    mcp_http_url p;
    mcp_error e;
    mcp__xfer *x;
    if (mcp__url_resolve(u, data, n, &abs, &p, &e) != MCP_OK) {
        mcp__refuse_endpoint(t, "The server's endpoint event is not a usable URL: %.200s", e.message);
    } else if (!mcp__same_origin(&p, u)) {
        mcp__refuse_endpoint(t, "The server's endpoint event names another origin (%.200s); it was refused",
                             abs.data);
        mcp_http_url_free(&p);
    } else {
        mcp_http_url_free(&t->post);
        t->post = p;
        t->have_post = 1;
        for (x = t->xfers; x; x = x->next) if (x->kind == MCP__X_POST) mcp__x_start(t, x);
    }
    mcp_buf_free(&abs);
}

/* Events of an SSE body. Returns 0 when the exchange (or the transport) ended here. */
static int mcp__x_sse_events(mcp__ht *t, mcp__xfer *x, const char *p, size_t n)
{
    size_t used;
    mcp_status st;
    mcp_sse_event ev;
    while (n) {
        st = mcp_sse_feed(&x->sp, p, n, &used);
        p += used; n -= used;
        while (mcp_sse_next(&x->sp, &ev) == MCP_OK) {
            if (x->kind == MCP__X_SSE_GET && ev.type_len == 8 && !memcmp(ev.type, "endpoint", 8)) {
                mcp__sse_endpoint(t, ev.data, ev.data_len);
                if (mcp__ht_stopped(t)) return 0;                   /* refused: x is gone with the transport */
                continue;
            }
            if (!ev.data_len) continue;                  /* a priming event: only its id counts */
            if (ev.type_len != 7 || memcmp(ev.type, "message", 7)) {
                MCP__TP_LOG(t->c, t->d, "Ignored an SSE event of type \"%.*s\".", (int)(ev.type_len > 40 ? 40 : ev.type_len), ev.type);
                continue;
            }
            if (x->kind == MCP__X_LISTEN) t->listen_attempts = 0;
            mcp__x_take(t, x, ev.data, ev.data_len);
            if (mcp__ht_stopped(t)) return 0;
        }
        if (st == MCP_ERR_LIMIT) {
            mcp__x_fail(t, x, MCP_ERR_LIMIT, 0, "The server's message is larger than the limit of %lu bytes.",
                        (unsigned long)t->d->max_message);
            return 0;
        }
        if (st < 0) {
            mcp__x_fail(t, x, MCP_ERR_PARSE, 0, "An event stream from the server broke: %s.",
                        x->sp.what ? x->sp.what : "malformed");
            return 0;
        }
    }
    return 1;
}

/* The response is complete (END), or the connection ended it. */
/* 307 and 308 keep the method and the body: followed for the MCP endpoint, at most 5 hops,
   and the final URL is the endpoint from then on (the session, the GET stream, DELETE).
   Another origin only with desc.http_cross_origin, and from then on without desc.headers.
   0, with the sentence in msg, when it is not followed. */
static int mcp__x_redirect(mcp__ht *t, mcp__conn *k, mcp__xfer *x, char *msg, size_t n)
{
    const char *loc = mcp_http_resp_header(&k->resp, "location", 0), *how = x->kind == MCP__X_POST ? "POST"
                    : x->kind == MCP__X_DELETE ? "DELETE" : "GET";
    const mcp_http_url *base = x->url ? x->url : &t->url;
    mcp_http_url u;
    mcp_buf abs;
    mcp_error e;
    struct addrinfo *ai = NULL;
    int cross, r;
    if (!loc || (x->kind == MCP__X_POST && t->sse)) return 0;   /* HTTP+SSE's POSTs: no */
    if (mcp__url_resolve(base, loc, strlen(loc), &abs, &u, &e) != MCP_OK) {
        snprintf(msg, n, "HTTP %d: the server redirects %s %s to \"%.150s\", which is not a usable URL (%.150s)",
                 x->status, how, base->target, loc, e.message);
        mcp_buf_free(&abs);
        return 0;
    }
    cross = !mcp__same_origin(&u, &t->url);
    if (x->hops >= 5 || (cross && !t->d->http_cross_origin) || (u.https && !t->d->tls)) {
        snprintf(msg, n, x->hops >= 5 ? "HTTP %d: the server redirected %s %s more than 5 times (the last time to "
                 "%.200s); the redirect was not followed" : cross && !t->d->http_cross_origin ? "HTTP %d: the server "
                 "redirects %s %s to another origin, %.200s; the redirect was not followed (desc.http_cross_origin "
                 "allows it, without desc.headers)" : "HTTP %d: the server redirects %s %s to %.200s, and https:// "
                 "needs desc.tls, a TLS hook", x->status, how, base->target, abs.data);
        mcp_http_url_free(&u); mcp_buf_free(&abs);
        return 0;
    }
    if (cross) {                                          /* the new host's addresses */
        if ((r = mcp__resolve(&u, &ai)) != 0) {
            snprintf(msg, n, "HTTP %d: the server redirects to %.200s, and %.100s could not be resolved: %s",
                     x->status, abs.data, u.host, gai_strerror(r));
            mcp_http_url_free(&u); mcp_buf_free(&abs);
            return 0;
        }
    }
    mcp_buf_free(&abs);
    t->st_redirects++;
    x->hops++;
    mcp__x_drop(t, x, 1);
    if (!cross) {                                         /* the endpoint moves once it answers */
        if (x->url) mcp_http_url_free(x->url);
        else if (!(x->url = (mcp_http_url *)MCP_MALLOC(sizeof *x->url, NULL))) {
            mcp_http_url_free(&u);
            mcp__x_fail(t, x, MCP_ERR_NOMEM, 0, "Out of memory following a redirect.");
            return 1;
        }
        *x->url = u;
    } else {                                              /* another origin: it moves now */
        mcp__conn *i, *next;
        if (x->url) { mcp_http_url_free(x->url); MCP_FREE(x->url, NULL); x->url = NULL; }
        mcp_http_url_free(&t->url);
        t->url = u;
        freeaddrinfo(t->ai);
        t->ai = ai;
        t->cross = 1;
        t->ugen++;                                   /* no connection to the old origin is reused */
        for (i = t->conns; i; i = next) { next = i->next; if (i->state == MCP__K_IDLE) mcp__conn_close(t, i); }
    }
    x->status = 0; x->sse = x->json = x->bad_ct = 0; x->in.len = 0;
    x->next = t->xfers; t->xfers = x;           /* first again: it was the oldest */
    if (x->kind == MCP__X_LISTEN) t->listener = x;
    mcp__x_start(t, x);
    return 1;
}

/* 404 for a request that carried the session: the session is over. Sent in an older one
   while a newer one is up, it goes again at once; else it waits (parked) and the client,
   told, starts a new session and then resumes it (or abandons it). */
static void mcp__x_lost(mcp__ht *t, mcp__xfer *x)
{
    mcp_tev ev;
    x->lost = 0; x->attempts = 1;                         /* a second 404 is an answer */
    x->next = t->xfers; t->xfers = x;
    if (t->session && x->had_session != t->sgen) { mcp__x_start(t, x); return; }
    MCP_FREE(t->session, NULL);
    t->session = NULL;
    x->parked = 1;
    memset(&ev, 0, sizeof ev);
    ev.http_status = 404;
    mcp__tell(t->c, &ev, MCP_TEV_SESSION_LOST, x->id, MCP_ERR_HTTP, NULL);
}

#ifndef MCP_NO_AUTH
/* 401 or 403 with desc.auth: the client runs the authorization flow. The exchange waits
   (parked) to go again as it was once authorized; the GET stream opens again then. */
static void mcp__x_unauthorized(mcp__ht *t, mcp__conn *k, mcp__xfer *x, const char *msg)
{
    mcp_buf wa;
    mcp_tev ev;
    const char *v;
    size_t i;
    memset(&wa, 0, sizeof wa);
    for (i = 0; (v = mcp_http_resp_header(&k->resp, "www-authenticate", i)) != NULL; i++)
        if ((wa.len && mcp_buf_append(&wa, "\n", 1) != MCP_OK) || mcp_buf_append(&wa, v, strlen(v)) != MCP_OK) break;
    memset(&ev, 0, sizeof ev);
    ev.http_status = x->status;
    ev.body = wa.data; ev.body_len = wa.len;
    mcp__x_drop(t, x, 1);
    if (x->kind == MCP__X_LISTEN) {
        t->listen_unauth = 1;
        if (t->listener == x) t->listener = NULL;
        mcp__x_free(x);
        x = NULL;
    } else {
        x->parked = 1; x->unauth = 1;
        x->next = t->xfers; t->xfers = x;
    }
    mcp__tell(t->c, &ev, MCP_TEV_UNAUTHORIZED, x && x->kind != MCP__X_SSE_GET ? x->id : -1, MCP_ERR_HTTP, "%s", msg);
    mcp_buf_free(&wa);
}
#endif

/* The response is complete (END), or the connection ended it. */
static void mcp__x_end(mcp__ht *t, mcp__conn *k)
{
    mcp__xfer *x = k->x;
    char msg[400];
    if (x->lost) { mcp__x_drop(t, x, 1); mcp__x_lost(t, x); return; }
    if (x->bad_ct) {
        const char *ct = mcp_http_resp_header(&k->resp, "content-type", 0);
        snprintf(msg, sizeof msg, "The server answered with Content-Type \"%.80s\", where %s was expected",
                 ct ? ct : "(none)", x->kind == MCP__X_POST ? "application/json or text/event-stream"
                                                            : "text/event-stream");
        x->status = 0;
    }
    if (x->status >= 200 && x->status < 300) {
        if (x->sse) { mcp__x_drop(t, x, 1); mcp__x_stream_end(t, x, "the server ended the stream"); return; }
        if (x->json) mcp__x_take(t, x, x->in.data ? x->in.data : "", x->in.len);
        mcp__x_drop(t, x, 1);
        if (x->kind == MCP__X_POST && !t->sse && x->id >= 0 && !x->got_response && !t->listener) {
            snprintf(msg, sizeof msg, "No response received for request ID %lld", (long long)x->id);
            mcp__ht_failed(t, x->id, MCP_ERR_PROTOCOL, 0, 0, NULL, msg);
        }
        mcp__x_free(x);
        return;
    }
    if (!x->bad_ct) mcp__ht_error_text(t, x, &k->resp, msg, sizeof msg);   /* failures only */
    if ((x->status == 307 || x->status == 308) && mcp__x_redirect(t, k, x, msg, sizeof msg)) return;
#ifndef MCP_NO_AUTH
    if ((x->status == 401 || x->status == 403) && t->d->auth && x->kind != MCP__X_DELETE && !t->cross) {
        mcp__x_unauthorized(t, k, x, msg);
        return;
    }
#endif
    mcp__x_drop(t, x, 1);
    if (x->kind == MCP__X_LISTEN) {
        if (x->status != 405) MCP__TP_LOG(t->c, t->d, "The server refused the GET event stream: %s", msg);
        t->listen_off = 1;                           /* 405: it offers none, not an error */
    } else if (x->id >= 0) {
        mcp__ht_failed(t, x->id, x->status ? MCP_ERR_HTTP : MCP_ERR_PROTOCOL, x->status, 0, &x->in, msg);
    } else if (x->kind == MCP__X_SSE_GET) {
        mcp__ht_broken(t, x->status ? MCP_ERR_HTTP : MCP_ERR_PROTOCOL, x->status, 0, msg);
    } else if (x->kind == MCP__X_POST) {
        MCP__TP_LOG(t->c, t->d, "The server refused a message: %s", msg);
    }
    mcp__x_free(x);
}

/* A stream ended without its answer. The GET stream is resumed here (Last-Event-ID, after
   the server's retry time, bounded attempts); a request's stream waits (parked) for the
   client, told whether it can be resumed, to resume or abandon it. */
static void mcp__x_stream_end(mcp__ht *t, mcp__xfer *x, const char *why)
{
    size_t lil;
    const char *lid = mcp_sse_last_id(&x->sp, &lil);
    unsigned long wait = x->sp.has_retry ? x->sp.retry_ms : 1000;
    int listener = x->kind == MCP__X_LISTEN;
    mcp_tev ev;
    char msg[300];
    if (x->kind == MCP__X_SSE_GET) {
        mcp__x_free(x);
        snprintf(msg, sizeof msg, "the server closed the event stream (%.200s)", why);
        mcp__ht_broken(t, MCP_ERR_CLOSED, 0, 0, msg);
        return;
    }
    if (t->down || t->step || (!listener && (x->id < 0 || x->got_response)) || x->kind == MCP__X_DELETE) {
        mcp__x_free(x);
        return;
    }
    if (listener && ++t->listen_attempts > 5) {
        MCP__TP_LOG(t->c, t->d, "Gave up the GET event stream after 5 attempts to resume it (%s).", why);
        mcp__x_free(x);
        return;
    }
    if (lil) {
        MCP_FREE(x->last_id, NULL);
        x->last_id = (char *)MCP_MALLOC(lil + 1, NULL);
        if (x->last_id) { memcpy(x->last_id, lid, lil); x->last_id[lil] = 0; }
    }
    x->body.len = 0;                                      /* a GET: no body */
    mcp_sse_reset(&x->sp);                                /* keeps the last id and retry */
    x->next = t->xfers; t->xfers = x;
    if (!listener) {
        x->parked = 1;
        memset(&ev, 0, sizeof ev);
        ev.resumable = lil && x->last_id && !t->modern;
        mcp__tell(t->c, &ev, MCP_TEV_BROKEN, x->id, MCP_ERR_PROTOCOL, "%s", why);
        return;
    }
    if (!x->sp.has_retry) wait = 1000ul << (t->listen_attempts - 1);
    if (wait > 30000) wait = 30000;
    x->at = mcp_time_ms() + (int64_t)wait;
    t->listener = x;
}

static void mcp__x_head(mcp__ht *t, mcp__conn *k)
{
    mcp__xfer *x = k->x;
    const char *ct = mcp_http_resp_header(&k->resp, "content-type", 0);
    const char *sid = mcp_http_resp_header(&k->resp, "mcp-session-id", 0);
    size_t i;
    x->status = k->resp.status;
    if (sid && !t->sse && !t->modern && !x->hdrs.len &&   /* not on 2026-07-28 ones */
        (!t->session || strcmp(sid, t->session))) {
        for (i = 0; sid[i] && sid[i] >= 0x21 && sid[i] <= 0x7E && i < 1024; i++) {}
        if (sid[i] || !i) MCP__TP_LOG(t->c, t->d, "Ignored a malformed Mcp-Session-Id header.");
        else {
            MCP_FREE(t->session, NULL);
            t->session = (char *)MCP_MALLOC(i + 1, NULL);
            if (t->session) memcpy(t->session, sid, i + 1);
            if (!++t->sgen) t->sgen = 1;
        }
    }
    if (x->status == 404 && x->had_session && x->kind == MCP__X_POST && !x->lost && x->attempts == 0) {
        x->lost = 1;                                      /* the session expired */
        return;
    }
    if (x->url && (x->status < 300 || x->status >= 400)) {   /* the end of a redirect: the endpoint */
        mcp_http_url_free(&t->url);
        t->url = *x->url;
        MCP_FREE(x->url, NULL);
        x->url = NULL;
    }
    if (x->status < 200 || x->status >= 300) return;
    if (ct && !strncmp(ct, "text/event-stream", 17)) x->sse = 1;
    else if (ct && !strncmp(ct, "application/json", 16)) x->json = 1;
    if (x->kind == MCP__X_POST) {
        if (t->sse) x->json = x->sse = 0;     /* answers come on the stream */
        else if (!x->sse && !x->json && x->id >= 0 && k->resp.framing != MCP_HTTP_NO_BODY) x->bad_ct = 1;
    } else if (x->kind != MCP__X_DELETE && !x->sse) {
        x->bad_ct = 1;                                    /* an event stream was asked for */
    }
}

/* Response bytes for the exchange on k. Returns 0 once k is gone or free for another. */
static int mcp__conn_feed(mcp__ht *t, mcp__conn *k, const char *p, size_t n)
{
    size_t used, max = t->d->max_message;
    mcp_status st;
    mcp_http_event ev;
    mcp__xfer *x;
    char hp[300];
    while (n) {
        st = mcp_http_resp_feed(&k->resp, p, n, &used);
        p += used; n -= used;
        while ((x = k->x) != NULL && mcp_http_resp_next(&k->resp, &ev) == MCP_OK) {
            if (ev.type == MCP_HTTP_HEAD) mcp__x_head(t, k);
            else if (ev.type == MCP_HTTP_BODY) {
                if (x->sse && !x->lost) { if (!mcp__x_sse_events(t, x, ev.data, ev.len)) return 0; }
                else if (x->json && !x->lost) {
                    if (x->in.len + ev.len > max) {
                        mcp__x_fail(t, x, MCP_ERR_LIMIT, 0, "The server's response is larger than the "
                                    "limit of %lu bytes.", (unsigned long)max);
                        return 0;
                    }
                    mcp_buf_append(&x->in, ev.data, ev.len);
                } else if (x->in.len < 4096) {                /* an error body: its start */
                    mcp_buf_append(&x->in, ev.data, ev.len < 4096 - x->in.len ? ev.len : 4096 - x->in.len);
                }
            } else {
                mcp__x_end(t, k);
                return 0;                                 /* k is idle or closed now */
            }
            if (mcp__ht_stopped(t)) return 0;
        }
        if (!k->x) return 0;
        if (st < 0) {
            mcp__host_port(t, hp, sizeof hp);
            mcp__x_fail(t, k->x, st, 0, "The HTTP response from %s is %s: %s.", hp,
                        st == MCP_ERR_LIMIT ? "too large" : "malformed", k->resp.what ? k->resp.what : "bad framing");
            return 0;
        }
        if (st == MCP_AGAIN && !used) break;
    }
    return 1;
}

static void mcp__conn_read(mcp__ht *t, mcp__conn *k)
{
    long r;
    int rounds;
    mcp_status st;
    char hp[300];
    if (!t->rbuf && !(t->rbuf = (char *)MCP_MALLOC(MCP__RBUF, NULL))) return;
    k->want_write = 0; k->pending = 0;
    for (rounds = 0; ; rounds++) {
        if (rounds == 64) { k->pending = 1; return; }    /* fair to the others; go on at once */
        r = k->tls ? t->d->tls->read(k->tls, t->rbuf, MCP__RBUF) : (long)recv(k->fd, t->rbuf, MCP__RBUF, 0);
        if (r > 0) {
            k->got += (size_t)r;
            if (!mcp__conn_feed(t, k, t->rbuf, (size_t)r)) return;
            /* a plain socket is drained by a short read; a TLS library may hold more than
               poll() can see, so TLS reads go on until it says WANT_READ */
            if (!k->tls && (size_t)r < MCP__RBUF) return;
            continue;
        }
        if (!k->tls && r < 0 && errno == EINTR) continue;
        if (k->tls ? r == MCP_TLS_WANT_READ : r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k->tls && r == MCP_TLS_WANT_WRITE) { k->want_write = 1; return; }
        /* the connection ended: EOF (r == 0), or a reset or TLS failure, which never counts
           as the clean end of a body read until close */
        if (mcp__x_retry(t, k)) return;
        st = r == 0 ? mcp_http_resp_finish(&k->resp) : MCP_ERR_CLOSED;
        if (k->x && st == MCP_OK) {                       /* a body read until close: its END */
            mcp_http_event ev;
            while (k->x && mcp_http_resp_next(&k->resp, &ev) == MCP_OK)
                if (ev.type == MCP_HTTP_END) { mcp__x_end(t, k); return; }
        }
        if (!k->x) return;
        if (k->x->sse && k->x->status >= 200 && k->x->status < 300) {   /* a stream dropped */
            mcp__xfer *x = k->x;
            char k_what[120];
            snprintf(k_what, sizeof k_what, "%s", r < 0 && !k->tls ? strerror(errno) : k->resp.what ? k->resp.what : "");
            k->x = NULL; x->conn = NULL;
            mcp__conn_close(t, k);
            mcp__x_unlink(t, x);
            mcp__x_stream_end(t, x, k_what[0] ? k_what : "the connection closed");
            return;
        }
        mcp__host_port(t, hp, sizeof hp);
        if (k->x->id >= 0 && k->x->kind == MCP__X_POST && k->reused && !k->got) {
            int e = r < 0 && !k->tls ? errno : 0;
            mcp_json_doc *b = mcp_json_parse(k->x->body.data, k->x->body.len, NULL);   /* its method, for */
            char m[64];                                                             /* the sentence */
            snprintf(m, sizeof m, "%s", mcp_json_str(mcp_json_get(mcp_json_root(b), "method")) ?
                     mcp_json_str(mcp_json_get(mcp_json_root(b), "method")) : "");
            mcp_json_free(b);
            mcp__x_fail(t, k->x, e ? MCP_ERR_IO : MCP_ERR_CLOSED, e, "The connection to %s %s after the %s request "
                        "was sent, before any answer; the server may have run it, so it was not sent again.", hp,
                        e ? strerror(e) : "closed", m);
        } else if (k->x->id >= 0 && k->x->kind == MCP__X_POST)
            mcp__x_fail(t, k->x, MCP_ERR_PROTOCOL, 0, "No response received for request ID %lld (the "
                        "connection to %s closed: %s)", (long long)k->x->id, hp,
                        k->resp.what ? k->resp.what : "EOF");
        else
            mcp__x_fail(t, k->x, MCP_ERR_CLOSED, 0, "The connection to %s closed (%s).", hp,
                        k->resp.what ? k->resp.what : "EOF");
        return;
    }
}

/* What a connection waits for: writable to connect or send (unless TLS wants to read
   first), readable to receive (unless TLS wants to write first). */
static short mcp__conn_events(const mcp__conn *k)
{
    if (k->state == MCP__K_CONNECT) return POLLOUT;
    if (k->state == MCP__K_WRITE) return (short)(k->want_read ? POLLIN : POLLOUT);
    return (short)(k->want_write ? POLLOUT : POLLIN);
}

static int mcp__ht_pollfds(void *tp, mcp_pollfd *fds, int max)
{
    const mcp__ht *t = (const mcp__ht *)tp;
    int n = 0;
    const mcp__conn *k;
    if (mcp__ht_stopped(t) || t->step == MCP__HC_DONE) return 0;
    for (k = t->conns; k && n < max; k = k->next) {
        if (k->state == MCP__K_IDLE || k->fd < 0) continue;
        if (fds) { fds[n].fd = k->fd; fds[n].events = mcp__conn_events(k); }
        n++;
    }
    return n;
}

/* The next time something HTTP is due: a resumption to start, a connect to give up. */
static int64_t mcp__ht_due0(const mcp__ht *t)
{
    int64_t due = -1;
    const mcp__xfer *x;
    const mcp__conn *k;
    for (x = t->xfers; x; x = x->next)
        if (!x->conn && !x->parked && x->at && (due < 0 || x->at < due)) due = x->at;
    for (k = t->conns; k; k = k->next) {
        if (k->state == MCP__K_CONNECT && (due < 0 || k->deadline < due)) due = k->deadline;
        if (k->pending) due = 0;                          /* TLS holds bytes already read */
    }
    if (due != 0 && mcp__x_startable(t)) due = 0;         /* a place came free for a queued one */
    return due;
}

static int mcp__conn_alive(const mcp__ht *t, const mcp__conn *k)
{
    const mcp__conn *i;
    for (i = t->conns; i; i = i->next) if (i == k) return 1;
    return 0;
}

/* Room in the poll set for every connection there is (the budgets bound them). */
static int mcp__ht_pollset(mcp__ht *t)
{
    const mcp__conn *k;
    int n = 0;
    void *p;
    for (k = t->conns; k; k = k->next) n++;
    if (n <= t->npf) return 1;
    n += 8;
    if (!(p = MCP_REALLOC(t->pf, (size_t)n * sizeof *t->pf, NULL))) return 0;
    t->pf = (struct pollfd *)p;
    if (!(p = MCP_REALLOC(t->pk, (size_t)n * sizeof *t->pk, NULL))) return 0;
    t->pk = (mcp__conn **)p;
    t->npf = n;
    return 1;
}

static void mcp__ht_io(void *tp, int wait)
{
    mcp__ht *t = (mcp__ht *)tp;
    struct pollfd *pf;
    mcp__conn **ks, *k, *next;
    mcp__xfer *x, *xn;
    int64_t now = mcp_time_ms(), due;
    int n = 0, i, r;
    char hp[300];
    if (mcp__ht_stopped(t)) return;
    for (x = t->xfers; x; x = xn) {                 /* exchanges whose time has come */
        xn = x->next;
        if (!x->conn && !x->parked && x->at <= now) mcp__x_start(t, x);
        if (mcp__ht_stopped(t)) return;                              /* the list is gone with it */
    }
    for (k = t->conns; k; k = next) {               /* connects that took too long */
        next = k->next;
        if (k->state == MCP__K_CONNECT && k->deadline <= now && k->x) {
            mcp__host_port(t, hp, sizeof hp);
            mcp__x_fail(t, k->x, MCP_ERR_TIMEOUT, ETIMEDOUT, "Could not connect to %s: no answer within %d ms.",
                        hp, t->d->connect_timeout_ms);
            if (mcp__ht_stopped(t)) return;
        }
    }
    if (!mcp__ht_pollset(t)) { mcp__ht_broken(t, MCP_ERR_NOMEM, 0, 0, "out of memory polling the connections"); return; }
    pf = t->pf; ks = t->pk;
    for (k = t->conns; k; k = k->next) {
        if (k->state == MCP__K_IDLE) continue;
        ks[n] = k;
        pf[n].fd = k->fd; pf[n].revents = 0;
        pf[n].events = mcp__conn_events(k);
        if (k->pending) wait = 0;                         /* bytes already read by TLS wait */
        n++;
    }
    due = mcp__ht_due0(t);
    if (due >= 0) {
        int64_t left = due - mcp_time_ms();
        if (left < 0) left = 0;
        if (wait < 0 || left < wait) wait = (int)left;
    }
    r = poll(pf, (nfds_t)n, wait);
    for (i = 0; r >= 0 && i < n && !mcp__ht_stopped(t); i++) {
        if (!mcp__conn_alive(t, ks[i])) continue;
        k = ks[i];
        if (!pf[i].revents && !k->pending) continue;
        if (k->state == MCP__K_CONNECT) mcp__conn_connected(t, k);
        else if (k->state == MCP__K_WRITE) mcp__conn_write(t, k);
        else mcp__conn_read(t, k);
    }
    for (x = t->xfers; x && !mcp__ht_stopped(t); x = xn) {      /* places freed by what just ended */
        xn = x->next;
        if (!x->conn && !x->parked && !x->at) mcp__x_start(t, x);
    }
}

/* The transport's operations (the table's contract: >>transport). */

static void mcp__ht_abandon(void *tp, int64_t id)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x;
    if (id < 0) {                                        /* the messages parked without an id */
        for (x = t->xfers; x; ) {
            mcp__xfer *next = x->next;
            if (x->parked && x->id < 0) { mcp__x_drop(t, x, 0); mcp__x_free(x); }
            x = next;
        }
        return;
    }
    for (x = t->xfers; x; x = x->next)
        if (x->id == id && (x->kind == MCP__X_POST || x->kind == MCP__X_RESUME) && (!t->sse || x->parked)) {
            mcp__x_drop(t, x, 0);
            mcp__x_free(x);
            return;
        }
}

/* After SESSION_LOST: the request goes again (in the new session); after a resumable BROKEN:
   its stream is resumed with GET and Last-Event-ID, after the server's retry time. */
static void mcp__ht_resume(void *tp, int64_t id)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x, *next;
    for (x = t->xfers; x; x = next) {
        next = x->next;
        if (!x->parked || (x->id != id && !(x->unauth && id < 0 && x->kind == MCP__X_SSE_GET))) continue;
        x->parked = 0;
        if (x->unauth || x->body.len) {                 /* the request again, as it was */
            x->unauth = 0;
            mcp__x_start(t, x);
            if (id >= 0) return;
            continue;
        }
        x->kind = MCP__X_RESUME;
        x->attempts++;
        x->at = mcp_time_ms() + (int64_t)(x->sp.has_retry ? x->sp.retry_ms : 1000);
        return;
    }
}

static mcp_status mcp__ht_send(void *tp, const char *text, size_t len, int64_t id, const char *headers,
                               unsigned how, mcp_error *err)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x;
    const char *h;
    if (t->down || t->step) return mcp__fail(err, MCP_ERR_CLOSED, "Transport closed");
    if (!(x = mcp__x_new(t, MCP__X_POST, id))) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory sending a message.");
    x->stream = (how & MCP_SEND_STREAM) != 0;
    x->repeatable = (how & MCP_SEND_REPEATABLE) != 0;
    for (h = headers; h && *h; h += strlen(h) + 1)       /* the headers this message carries */
        mcp_buf_append(&x->hdrs, h, strlen(h) + 1);
    if (mcp_buf_append(&x->body, text, len) != MCP_OK || (headers && *headers && !x->hdrs.len)) {
        mcp__x_unlink(t, x); mcp__x_free(x);
        return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory sending a message.");
    }
    mcp__x_start(t, x);
    return MCP_OK;
}

/* The version is agreed: its header goes on every request; then, before 2026-07-28, the GET
   event stream opens for what the server sends on its own (unless desc.http_listen < 0). */
static void mcp__ht_ready(void *tp, const char *version, int modern)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x;
    t->version = version; t->modern = modern;
    if (t->d->http_listen < 0 || t->sse || t->listen_off || t->listener || modern) return;
    if ((x = mcp__x_new(t, MCP__X_LISTEN, -1)) != NULL) { t->listener = x; mcp__x_start(t, x); }
}

#ifndef MCP_NO_AUTH
/* From now on every request carries this Authorization header (NULL: none). A GET stream that
   met 401 opens again. */
static void mcp__ht_authorize(void *tp, const char *authorization)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x;
    size_t n = authorization ? strlen(authorization) : 0;
    if (t->authz) { memset(t->authz, 0, strlen(t->authz)); MCP_FREE(t->authz, NULL); t->authz = NULL; }
    if (authorization && (t->authz = (char *)MCP_MALLOC(n + 16, NULL)) != NULL) {
        memcpy(t->authz, "Authorization: ", 15); memcpy(t->authz + 15, authorization, n + 1);
    }
    if (t->listen_unauth && t->authz && !t->listener && !t->down) {
        t->listen_unauth = 0;
        if ((x = mcp__x_new(t, MCP__X_LISTEN, -1)) != NULL) { t->listener = x; mcp__x_start(t, x); }
    }
}
#else
#define mcp__ht_authorize NULL
#endif

/* Is an exchange of this kind (a notification or reply POST, or the DELETE) still going? */
static int mcp__ht_going(const mcp__ht *t, int deletes)
{
    const mcp__xfer *x;
    for (x = t->xfers; x; x = x->next)
        if ((x->kind == MCP__X_POST && x->id < 0) || (deletes && x->kind == MCP__X_DELETE)) return 1;
    return 0;
}

/* A notification's POST in flight, or the GET stream not yet answered. */
static int mcp__ht_busy(void *tp)
{
    const mcp__ht *t = (const mcp__ht *)tp;
    const mcp__xfer *x;
    if (mcp__ht_going(t, 0)) return 1;
    for (x = t->xfers; x; x = x->next) if (x->kind == MCP__X_LISTEN && !x->status) return 1;
    return 0;
}

static int64_t mcp__ht_due(void *tp)
{
    const mcp__ht *t = (const mcp__ht *)tp;
    if (t->step == MCP__HC_DONE || mcp__ht_stopped(t)) return -1;
    if (t->step) return mcp__ht_due0(t) == 0 ? 0 : t->step_end;
    return mcp__ht_due0(t);
}

/* Every exchange and connection, gone. */
static void mcp__ht_drop_all(mcp__ht *t)
{
    mcp__xfer *x;
    while (t->xfers) { x = t->xfers; mcp__x_drop(t, x, 0); mcp__x_free(x); }
    while (t->conns) mcp__conn_close(t, t->conns);
}

/* The close, one step at a time: what was already sent without an answer to wait for
   (notifications, replies: a cancellation, say) gets up to a second to arrive (SENT); then
   the session is DELETEd, failure ignored (DELETE, within the same second); the streams end,
   every connection closes. */
static void mcp__ht_close_next(mcp__ht *t)
{
    mcp__xfer *x;
    int64_t left = t->step_end - mcp_time_ms();
    if (t->step == MCP__HC_SENT && (!mcp__ht_going(t, 0) || left <= 0)) {
        t->step = MCP__HC_DELETE;
        if (!t->close_now && left > 0 && t->session && !t->sse && t->ai &&
            (x = mcp__x_new(t, MCP__X_DELETE, -1)) != NULL)
            mcp__x_start(t, x);
    }
    if (t->step == MCP__HC_DELETE && (!mcp__ht_going(t, 1) || left <= 0)) {
        mcp__ht_drop_all(t);
        t->step = MCP__HC_DONE;
        mcp__tell(t->c, NULL, MCP_TEV_CLOSED, -1, MCP_ERR_CLOSED, NULL);
    }
}

static int mcp__ht_close(void *tp, int now, int wait)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x, *next;
    int64_t left;
    if (t->step == MCP__HC_DONE) return 0;
    if (!t->step) {                                      /* requests end with the transport */
        for (x = t->xfers; x; x = next) {
            next = x->next;
            if (!(x->kind == MCP__X_POST && x->id < 0) && x->kind != MCP__X_SSE_GET) { mcp__x_drop(t, x, 0); mcp__x_free(x); }
        }
        t->close_now = now;
        t->step = MCP__HC_SENT;
        t->step_end = mcp_time_ms() + (now ? 0 : 1000);  /* mcp_client_close_now: no DELETE either */
        mcp__ht_close_next(t);                           /* the DELETE starts; later steps carry it */
        return t->step != MCP__HC_DONE;
    }
    left = t->step_end - mcp_time_ms();
    if (wait < 0 || wait > left) wait = left > 0 ? (int)left : 0;
    mcp__ht_close_next(t);
    if (t->step != MCP__HC_DONE) mcp__ht_io(t, wait);
    if (t->step != MCP__HC_DONE) mcp__ht_close_next(t);
    return t->step != MCP__HC_DONE;
}

static void mcp__ht_free(void *tp)
{
    mcp__ht *t = (mcp__ht *)tp;
    if (!t) return;
    mcp__ht_drop_all(t);
    mcp_http_url_free(&t->url);
    mcp_http_url_free(&t->post);
    if (t->ai) freeaddrinfo(t->ai);
    MCP_FREE(t->session, NULL);
    if (t->authz) { memset(t->authz, 0, strlen(t->authz)); MCP_FREE(t->authz, NULL); }
    MCP_FREE(t->rbuf, NULL);
    MCP_FREE(t->pf, NULL);
    MCP_FREE(t->pk, NULL);
    MCP_FREE(t, NULL);
}

/* Resolves the endpoint's host; HTTP+SSE opens its stream at once (the POSTs wait for its
   endpoint event). */
static void *mcp__ht_open_as(mcp_client *c, const mcp_client_desc *d, int sse, mcp_error *err)
{
    char hp[300];
    int r;
    mcp__ht *t = (mcp__ht *)MCP_MALLOC(sizeof *t, NULL);
    mcp__xfer *x;
    if (!t) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory connecting."); return NULL; }
    memset(t, 0, sizeof *t);
    t->c = c; t->d = d; t->sse = sse;
    if (mcp_http_url_parse(&t->url, d->url, err) != MCP_OK) { MCP_FREE(t, NULL); return NULL; }
    if ((r = mcp__resolve(&t->url, &t->ai)) != 0) {
        mcp__host_port(t, hp, sizeof hp);
        t->ai = NULL;
        mcp__fail(err, MCP_ERR_IO, "Could not resolve %s: %s.", hp, gai_strerror(r));
        mcp__ht_free(t);
        return NULL;
    }
    if (sse && (x = mcp__x_new(t, MCP__X_SSE_GET, -1)) != NULL) mcp__x_start(t, x);
    return t;
}

/* Streamable HTTP becomes HTTP+SSE (the client's fallback, mcp__fall_back): what is under way
   is dropped and the GET stream opens on the endpoint as it is now. 0 when a session began
   (a Streamable HTTP server after all: no fallback). */
static int mcp__ht_as_sse(void *tp)
{
    mcp__ht *t = (mcp__ht *)tp;
    mcp__xfer *x;
    if (t->session) return 0;
    while (t->xfers) { x = t->xfers; mcp__x_drop(t, x, 0); mcp__x_free(x); }
    t->sse = 1;
    if ((x = mcp__x_new(t, MCP__X_SSE_GET, -1)) != NULL) mcp__x_start(t, x);
    return 1;
}

static void *mcp__ht_open(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err)
{
    (void)user;
    return mcp__ht_open_as(c, d, 0, err);
}

static void *mcp__sse_open(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err)
{
    (void)user;
    return mcp__ht_open_as(c, d, 1, err);
}

static void mcp__ht_stats(void *tp, mcp_client_stats *st)
{
    const mcp__ht *t = (const mcp__ht *)tp;
    st->resent += t->st_resent;
    st->redirects += t->st_redirects;
}

/* What the HTTP transports need of a description: a URL they can use, a TLS hook for https,
   headers that are headers. */
static int mcp__ht_check(const mcp_client_desc *d, mcp_error *err)
{
    mcp_http_url url;
    const char *const *h;
    int tls;
    if (!d->url) {
        mcp__fail(err, MCP_ERR_INVALID, "The HTTP transports need desc.url, the server's MCP endpoint.");
        return 0;
    }
    memset(&url, 0, sizeof url);
    if (mcp_http_url_parse(&url, d->url, err) != MCP_OK) return 0;
    tls = !url.https || (d->tls && d->tls->open && d->tls->read && d->tls->write);
    mcp_http_url_free(&url);                             /* open parses it again */
    if (!tls) {
        mcp__fail(err, MCP_ERR_INVALID, "https:// URLs need a TLS hook in desc.tls, because libc has no "
                  "TLS; examples/tls_openssl.c shows one on OpenSSL.");
        return 0;
    }
    for (h = d->headers; h && *h; h++)
        if (!mcp__check_header(*h, err)) return 0;
    return 1;
}

static const mcp_transport mcp__http_transport = {
    MCP_TRANSPORT_HTTP | MCP__TRANSPORT_FALLBACK, mcp__ht_open, mcp__ht_send, mcp__ht_pollfds, mcp__ht_due, mcp__ht_io, mcp__ht_abandon,
    mcp__ht_close, mcp__ht_free, mcp__ht_resume, mcp__ht_ready, mcp__ht_busy, NULL, mcp__ht_stats, NULL,
    mcp__ht_authorize
};

/* ---- >>transport.sse  HTTP+SSE (2024-11-05): the same exchanges, opened with the GET stream --
   whose first event, "endpoint", names where the POSTs go (mcp__sse_endpoint); the answers
   come on that stream, and its end is the transport's. */
static const mcp_transport mcp__sse_transport = {
    MCP_TRANSPORT_HTTP | MCP__TRANSPORT_LEGACY, mcp__sse_open, mcp__ht_send, mcp__ht_pollfds, mcp__ht_due, mcp__ht_io, mcp__ht_abandon,
    mcp__ht_close, mcp__ht_free, mcp__ht_resume, mcp__ht_ready, mcp__ht_busy, NULL, mcp__ht_stats, NULL,
    mcp__ht_authorize
};

/* ---- >>transport.once  a one-shot HTTP exchange and a loopback listener ----------------------
   What the authorization layer needs from the network, built on the pieces above (the URL
   parser, the request writer, the response parser, the socket helpers, and the TLS hook as
   the Streamable HTTP transport uses it), so there is one HTTP stack:
     mcp__once  one request to any URL (authorization-server metadata, the token and the
                registration endpoints) on its own connection ("Connection: close"), and its
                whole answer: status, headers, a bounded body. Redirects are not followed: the
                endpoints it talks to answer directly, and a 3xx is handed back as it is.
     mcp__loop  a listener on 127.0.0.1 (never another address) for the browser coming back
                from the authorization page: it answers one GET with a short page and hands
                back the request target ("/callback?code=...&state=...").
   Both are non-blocking state machines a poll loop drives (pollfd(s), due, io), with a
   blocking convenience each. A URL's query and a body may hold codes or tokens, so no
   sentence here ever shows them: host:port and the path only. Nothing in the library calls
   these yet (MCP__UNUSED); a program that does not use them does not grow. */

#define MCP__ONCE_MAX_BODY ((size_t)1 << 20)    /* the body's limit by default: 1 MiB */
#define MCP__ONCE_TIMEOUT_MS 30000              /* the whole exchange, by default */
enum { MCP__O_CONNECT = 1, MCP__O_WRITE, MCP__O_READ, MCP__O_DONE };

typedef struct mcp__once_limits {
    size_t max_head;                 /* the answer's status line and headers; 0: 64 KiB */
    size_t max_body;                 /* its body (dechunked); 0: 1 MiB; past it: MCP_ERR_LIMIT */
} mcp__once_limits;

typedef struct mcp__once {
    /* the answer, once io returned MCP_OK */
    int status;                      /* the HTTP status: 200, 404, ... (not an error here) */
    mcp_http_resp resp;              /* its headers: mcp_http_resp_header(&o->resp, name, 0) */
    mcp_buf body;                    /* its body, NUL-terminated (the NUL not in body.len) */
    /* private */
    int fd, state, want;             /* want: the poll events the next step waits for */
    const mcp_tls *tls;
    void *ts;                        /* the hook's session, or NULL */
    struct addrinfo *ai, *next;      /* the host's addresses; the next one to try */
    mcp_http_url url;
    mcp_buf req;                     /* the request, as sent */
    size_t sent, max_body;
    int64_t due;
    int timeout_ms;
    mcp_status result;               /* MCP_AGAIN until the exchange is over */
    mcp_error err;                   /* why it failed */
    char hp[300], what[200];         /* "host:port" and "GET /path": what sentences may show */
} mcp__once;

static mcp_status mcp__once_end(mcp__once *o, mcp_status st, int sys, const char *fmt, ...) MCP__PRINTF(4, 5);
static mcp_status mcp__once_end(mcp__once *o, mcp_status st, int sys, const char *fmt, ...)
{
    va_list ap;
    if (o->ts) { o->tls->close(o->ts); o->ts = NULL; }
    if (o->fd >= 0) { close(o->fd); o->fd = -1; }
    o->state = MCP__O_DONE; o->result = st;
    if (fmt) {
        memset(&o->err, 0, sizeof o->err);
        o->err.status = st; o->err.sys_errno = sys;
        va_start(ap, fmt);
        vsnprintf(o->err.message, sizeof o->err.message, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* After start (a failed one too); twice does no harm. */
MCP__UNUSED static void mcp__once_free(mcp__once *o)
{
    mcp__once_end(o, o->result, 0, NULL);
    if (o->ai) freeaddrinfo(o->ai);
    o->ai = o->next = NULL;
    mcp_http_url_free(&o->url);
    mcp_buf_free(&o->req); mcp_buf_free(&o->body);
    mcp_http_resp_free(&o->resp);
}

/* Connects to the next address that takes a connect (e: why the last one failed). */
static void mcp__once_connect(mcp__once *o, int e)
{
    const struct addrinfo *a;
    if (o->fd >= 0) { close(o->fd); o->fd = -1; }
    while ((a = o->next) != NULL) {
        o->next = a->ai_next;
        if ((o->fd = mcp__sock_connect(a)) >= 0) { o->state = MCP__O_CONNECT; o->want = POLLOUT; return; }
        e = errno;
    }
    mcp__once_end(o, MCP_ERR_IO, e, "Could not connect to %s: %s.", o->hp, strerror(e));
}

/* The URL parser's sentence quotes the URL; one with a query (a code, a token) is told
   without it: the part before the '?' alone, or what is wrong with the query. */
static mcp_status mcp__once_url(mcp__once *o, const char *url, mcp_error *err)
{
    const char *q = url ? strpbrk(url, "?#") : NULL;
    char head[400];
    mcp_http_url u;
    if (mcp_http_url_parse(&o->url, url, err) == MCP_OK) return MCP_OK;
    if (!q) return err ? err->status : MCP_ERR_INVALID;
    snprintf(head, sizeof head, "%.*s", (int)(q - url < 390 ? q - url : 390), url);
    if (mcp_http_url_parse(&u, head, err) != MCP_OK) return MCP_ERR_INVALID;
    mcp_http_url_free(&u);
    return mcp__fail(err, MCP_ERR_INVALID, "Invalid URL \"%s?...\": its query or fragment has a space, a control "
                     "character, a bad %%-escape or another character that must be percent-encoded.", head);
}

/* Starts the exchange: resolves the host (getaddrinfo blocks) and begins the connect.
   headers: "Name: value", NULL-ended (or NULL); body (body_len bytes) may be NULL; tls is
   needed for https://; timeout_ms bounds the whole exchange (<= 0: 30 s); lim may be NULL.
   MCP_OK: drive it with io. An error: err says why; o needs no free (it does no harm). */
MCP__UNUSED static mcp_status mcp__once_start(mcp__once *o, const char *method, const char *url,
                                              const char *const *headers, const char *body, size_t body_len,
                                              const mcp_tls *tls, int timeout_ms, const mcp__once_limits *lim,
                                              mcp_error *err)
{
    static const char *const close_hdr[] = { "Connection: close", NULL };
    struct addrinfo hints;
    char port[16];
    const char *q;
    int r;
    memset(o, 0, sizeof *o);
    o->fd = -1; o->result = MCP_AGAIN; o->tls = tls;
    o->timeout_ms = timeout_ms > 0 ? timeout_ms : MCP__ONCE_TIMEOUT_MS;
    o->max_body = lim && lim->max_body ? lim->max_body : MCP__ONCE_MAX_BODY;
    o->resp.max_head = lim ? lim->max_head : 0;
    if (mcp__once_url(o, url, err) != MCP_OK) return err ? err->status : MCP_ERR_INVALID;
    snprintf(o->hp, sizeof o->hp, "%s%s%s:%u", o->url.ipv6 ? "[" : "", o->url.host, o->url.ipv6 ? "]" : "", o->url.port);
    q = strchr(o->url.target, '?');
    snprintf(o->what, sizeof o->what, "%.20s %.*s", method ? method : "", (int)(q ? q - o->url.target : 160),
             o->url.target);
    if (o->url.https && !tls) {
        mcp__fail(err, MCP_ERR_INVALID, "Could not %s on %s: https:// needs a TLS hook (mcp_tls), and none was given.",
                  o->what, o->hp);
        mcp__once_free(o);
        return MCP_ERR_INVALID;
    }
    if (mcp_http_write_request(&o->req, method, &o->url, headers, close_hdr, body, body_len, err) != MCP_OK) {
        mcp__once_free(o);
        return err ? err->status : MCP_ERR_INVALID;
    }
    o->resp.head_request = !strcmp(method, "HEAD");
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC; hints.ai_socktype = SOCK_STREAM; hints.ai_flags = AI_NUMERICSERV;
    snprintf(port, sizeof port, "%u", o->url.port);
    if ((r = getaddrinfo(o->url.host, port, &hints, &o->ai)) != 0) {
        o->ai = NULL;
        mcp__fail(err, MCP_ERR_IO, "Could not resolve %.260s: %s.", o->url.host, gai_strerror(r));
        mcp__once_free(o);
        return MCP_ERR_IO;
    }
    o->due = mcp_time_ms() + o->timeout_ms;
    o->next = o->ai;
    mcp__once_connect(o, 0);
    if (o->result != MCP_AGAIN) {              /* no address took a connect */
        if (err) *err = o->err;
        mcp__once_free(o);
        return MCP_ERR_IO;
    }
    mcp__ok(err);
    return MCP_OK;
}

/* The answer's events: the head (a Content-Length over the limit fails at once), the body
   (bounded), the end. Returns 0 once the exchange is over. */
static int mcp__once_events(mcp__once *o)
{
    mcp_http_event ev;
    while (mcp_http_resp_next(&o->resp, &ev) == MCP_OK) {
        if (ev.type == MCP_HTTP_HEAD) o->status = o->resp.status;
        if ((ev.type == MCP_HTTP_HEAD && o->resp.framing == MCP_HTTP_LENGTH && o->resp.content_length > o->max_body) ||
            (ev.type == MCP_HTTP_BODY && ev.len > o->max_body - o->body.len)) {
            mcp__once_end(o, MCP_ERR_LIMIT, 0, "The answer from %s to %s has a body larger than the limit of %lu bytes.",
                          o->hp, o->what, (unsigned long)o->max_body);
            return 0;
        }
        if ((ev.type == MCP_HTTP_BODY && mcp_buf_append(&o->body, ev.data, ev.len) != MCP_OK) ||
            (ev.type == MCP_HTTP_END && mcp_buf_reserve(&o->body, 1) != MCP_OK)) {
            mcp__once_end(o, MCP_ERR_NOMEM, 0, "Out of memory reading the answer from %s.", o->hp);
            return 0;
        }
        if (ev.type == MCP_HTTP_END) {
            o->body.data[o->body.len] = 0;
            mcp__once_end(o, MCP_OK, 0, NULL);
            mcp__ok(&o->err);
            return 0;
        }
    }
    return 1;
}

static void mcp__once_bad(mcp__once *o, mcp_status st)
{
    if (st == MCP_ERR_CLOSED)
        mcp__once_end(o, st, 0, "The connection to %s closed before an answer to %s arrived.", o->hp, o->what);
    else
        mcp__once_end(o, st, 0, "The answer from %s to %s is not usable HTTP: %s.", o->hp, o->what,
                      o->resp.what ? o->resp.what : "the connection was cut short");
}

static int mcp__once_feed(mcp__once *o, const char *p, size_t n)   /* 0: the exchange is over */
{
    size_t used;
    mcp_status st;
    for (;;) {
        st = mcp_http_resp_feed(&o->resp, p, n, &used);
        p += used; n -= used;
        if (st < 0) { mcp__once_bad(o, st); return 0; }
        if (!mcp__once_events(o)) return 0;
        if (!n || (st == MCP_AGAIN && !used)) return 1;
    }
}

/* The connect is over (the socket is writable): next address, or the TLS handshake, which
   the hook does blocking, bounded by the exchange's time left (as in mcp__conn_connected). */
static void mcp__once_connected(mcp__once *o)
{
    int e = 0;
    socklen_t l = sizeof e;
    mcp_error te;
    getsockopt(o->fd, SOL_SOCKET, SO_ERROR, &e, &l);
    if (e) { mcp__once_connect(o, e); return; }
    if (o->url.https) {
        o->ts = mcp__tls_open(o->tls, o->fd, o->url.host, o->due, &te);
        if (!o->ts) {
            mcp__once_end(o, te.status < 0 ? te.status : MCP_ERR_IO, te.sys_errno, "TLS handshake with %s failed%s%s",
                          o->hp, te.message[0] ? ": " : ".", te.message);
            return;
        }
    }
    o->state = MCP__O_WRITE; o->want = POLLOUT;
}

static void mcp__once_write(mcp__once *o)
{
    long r;
    int e;
    while (o->sent < o->req.len) {
        r = o->ts ? o->tls->write(o->ts, o->req.data + o->sent, o->req.len - o->sent)
                  : mcp__sock_send(o->fd, o->req.data + o->sent, o->req.len - o->sent);
        if (r > 0) { o->sent += (size_t)r; continue; }
        if (!o->ts && r < 0 && errno == EINTR) continue;
        if (o->ts ? r == MCP_TLS_WANT_WRITE : r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { o->want = POLLOUT; return; }
        if (o->ts && r == MCP_TLS_WANT_READ) { o->want = POLLIN; return; }
        e = o->ts || r == 0 ? 0 : errno;
        mcp__once_end(o, MCP_ERR_IO, e, "Could not send %s to %s: %s.", o->what, o->hp,
                      e ? strerror(e) : "the TLS layer failed");
        return;
    }
    o->state = MCP__O_READ; o->want = POLLIN;
}

static void mcp__once_read(mcp__once *o)
{
    char buf[8192];
    long r;
    mcp_status st;
    for (;;) {
        r = o->ts ? o->tls->read(o->ts, buf, sizeof buf) : (long)recv(o->fd, buf, sizeof buf, 0);
        if (r > 0) {
            if (!mcp__once_feed(o, buf, (size_t)r)) return;
            if (!o->ts && (size_t)r < sizeof buf) return;   /* a TLS library may hold more */
            continue;
        }
        if (!o->ts && r < 0 && errno == EINTR) continue;
        if (o->ts ? r == MCP_TLS_WANT_READ : r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { o->want = POLLIN; return; }
        if (o->ts && r == MCP_TLS_WANT_WRITE) { o->want = POLLOUT; return; }
        /* the end: EOF completes a body read until close; a reset or TLS failure never does */
        st = r == 0 ? mcp_http_resp_finish(&o->resp) : MCP_ERR_CLOSED;
        if (st == MCP_OK && !mcp__once_events(o)) return;
        mcp__once_bad(o, st == MCP_OK ? MCP_ERR_PARSE : st);
        return;
    }
}

/* The descriptor to wait for now and its events (POLLIN, POLLOUT): 1, or 0 once it is over. */
MCP__UNUSED static int mcp__once_pollfd(const mcp__once *o, mcp_pollfd *pf)
{
    if (o->result != MCP_AGAIN) return 0;
    pf->fd = o->fd; pf->events = (short)o->want;
    return 1;
}

MCP__UNUSED static int64_t mcp__once_due(const mcp__once *o) { return o->result == MCP_AGAIN ? o->due : -1; }

/* Waits at most wait_ms (-1: until something happens, 0: not at all) and does what is ready.
   MCP_AGAIN: not over yet. MCP_OK: the answer is in status, resp and body (any status: a 404
   is an answer). An error: err says why (the same each time it is asked again). */
MCP__UNUSED static mcp_status mcp__once_io(mcp__once *o, int wait_ms, mcp_error *err)
{
    struct pollfd pf;
    int64_t left;
    if (o->result == MCP_AGAIN) {
        left = o->due - mcp_time_ms();
        if (left < 0) left = 0;
        if (wait_ms < 0 || wait_ms > left) wait_ms = (int)left;
        pf.fd = o->fd; pf.events = (short)o->want; pf.revents = 0;
        if (poll(&pf, 1, wait_ms) > 0) {
            if (o->state == MCP__O_CONNECT) mcp__once_connected(o);
            if (o->state == MCP__O_WRITE) mcp__once_write(o);
            if (o->state == MCP__O_READ) mcp__once_read(o);
        }
        if (o->result == MCP_AGAIN && mcp_time_ms() >= o->due) {
            if (o->state == MCP__O_CONNECT)
                mcp__once_end(o, MCP_ERR_TIMEOUT, ETIMEDOUT, "Could not connect to %s: no answer within %d ms.",
                              o->hp, o->timeout_ms);
            else
                mcp__once_end(o, MCP_ERR_TIMEOUT, ETIMEDOUT, "%s gave no answer to %s within %d ms.", o->hp,
                              o->what, o->timeout_ms);
        }
    }
    if (o->result < 0 && err) *err = o->err;
    else mcp__ok(err);
    return o->result;
}

/* The blocking convenience: start and io until it is over. Free o after (it holds the answer). */
MCP__UNUSED static mcp_status mcp__once_run(mcp__once *o, const char *method, const char *url,
                                            const char *const *headers, const char *body, size_t body_len,
                                            const mcp_tls *tls, int timeout_ms, const mcp__once_limits *lim,
                                            mcp_error *err)
{
    mcp_status st = mcp__once_start(o, method, url, headers, body, body_len, tls, timeout_ms, lim, err);
    if (st == MCP_OK)
        while ((st = mcp__once_io(o, -1, err)) == MCP_AGAIN) {}
    return st;
}

/* ---- the loopback listener ---- */

#define MCP__LOOP_HEAD 8192              /* a browser's request head, at most */
#define MCP__LOOP_IDLE_MS 10000          /* a connection with no whole head by then is dropped */

/* The request head, sans I/O: fed whole or in pieces, it finds the blank line that ends the
   head (within MCP__LOOP_HEAD bytes, no allocation), then checks the request line,
   "GET <target> HTTP/1.x" with an origin-form target, and that every header line is
   "Name: value". Bytes after the head are not taken (*used). */
typedef struct mcp__loop_head {
    char buf[MCP__LOOP_HEAD + 1];
    size_t len, line;                    /* bytes held; where the current line begins */
    mcp_status st;                       /* MCP_AGAIN until the head is in, then its verdict */
    const char *target;                  /* MCP_OK: the target, NUL-terminated, in buf */
    const char *what;                    /* an error: what is wrong, a phrase */
} mcp__loop_head;

static void mcp__loop_head_reset(mcp__loop_head *h)
{
    h->len = h->line = 0; h->st = MCP_AGAIN; h->target = NULL; h->what = NULL;
}

static mcp_status mcp__loop_head_bad(mcp__loop_head *h, mcp_status st, const char *what)
{
    h->st = st; h->what = what;
    return st;
}

/* A header line (n bytes, no CR LF): a token, ':', then field-value characters only. */
static int mcp__loop_field(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && mcp__tchar((unsigned char)p[i])) i++;
    if (!i || i == n || p[i] != ':') return 0;
    for (i++; i < n; i++)
        if (!mcp__vchar((unsigned char)p[i])) return 0;
    return 1;
}

/* The whole head is in buf (len bytes, ending in a blank line). */
static mcp_status mcp__loop_head_check(mcp__loop_head *h)
{
    char *p = h->buf, *end = h->buf + h->len, *t, *eol;
    size_t n;
    if (h->len < 4 || memcmp(p, "GET ", 4))
        return mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request is not a GET (the line must be \"GET <target> HTTP/1.x\")");
    for (t = p += 4; p < end && *p != ' ' && *p != '\r' && *p != '\n'; p++)
        if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7E)
            return mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request target has a control character or a non-ASCII byte");
    if (p == t || *t != '/')
        return mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request target does not begin with '/'");
    if (end - p < 10 || memcmp(p, " HTTP/1.", 8) || (p[8] != '0' && p[8] != '1') ||
        (p[9] == '\r' ? p[10] != '\n' : p[9] != '\n'))
        return mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request line does not end in \" HTTP/1.0\" or \" HTTP/1.1\"");
    *p = 0;                                              /* the target's end */
    for (p += p[9] == '\r' ? 11 : 10; ; p = eol + 1) {
        eol = (char *)memchr(p, '\n', (size_t)(end - p));  /* found: the head ends in a blank line */
        n = (size_t)(eol - p);
        if (n && p[n - 1] == '\r') n--;
        if (!n) break;
        if (!mcp__loop_field(p, n))
            return mcp__loop_head_bad(h, MCP_ERR_PARSE, "a header line is not \"Name: value\"");
    }
    h->target = t;
    h->st = MCP_OK;
    return MCP_OK;
}

MCP__UNUSED static mcp_status mcp__loop_head_feed(mcp__loop_head *h, const char *data, size_t n, size_t *used)
{
    size_t i;
    for (i = 0; i < n && h->st == MCP_AGAIN; i++) {
        if (h->len == MCP__LOOP_HEAD) {
            mcp__loop_head_bad(h, MCP_ERR_LIMIT, "the request head is larger than 8192 bytes");
            break;
        }
        h->buf[h->len++] = data[i];
        if (data[i] == 0) mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request head has a NUL byte");
        else if (data[i] == '\n') {
            size_t ll = h->len - 1 - h->line;                /* the line's length, without LF */
            if (ll == 0 || (ll == 1 && h->buf[h->line] == '\r')) {
                if (h->line == 0) mcp__loop_head_bad(h, MCP_ERR_PARSE, "the request begins with a blank line");
                else mcp__loop_head_check(h);
            }
            h->line = h->len;
        }
    }
    if (used) *used = i;
    return h->st;
}

/* The listener: one connection at a time. A malformed request gets a 400 and the listener
   goes on (a stray client must not end a sign-in; what was wrong is kept in what); a good
   GET gets the page and ends it, whatever its path: the caller checks the path and state.
   A connection that has sent nothing yields to the next one waiting (a browser may open a
   spare one and send on another), and one that sends no whole head in 10 s is dropped. */
typedef struct mcp__loop {
    const char *target;                  /* after io returned MCP_OK: the request target */
    const char *what;                    /* the last refused request's problem, or NULL */
    /* set after open, optional: 1 if a well-formed GET is the one awaited (its path, its
       state); another is answered 400 and the wait goes on */
    int (*expect)(void *user, const char *target);
    void *user;
    /* private */
    int fd, cfd;                         /* the listening socket; the connection (-1: none) */
    unsigned port;
    int64_t cdue;                        /* the connection's head is due by then */
    int done;
    char out[400];                       /* the reply being sent */
    size_t out_len, sent;
    mcp__loop_head head;
} mcp__loop;

/* After open (a failed one too); twice does no harm. */
MCP__UNUSED static void mcp__loop_free(mcp__loop *l)
{
    if (l->cfd >= 0) close(l->cfd);
    if (l->fd >= 0) close(l->fd);
    l->fd = l->cfd = -1;
}

/* Listens on 127.0.0.1:port (0: a free port the system picks; mcp__loop_port tells). */
MCP__UNUSED static mcp_status mcp__loop_open(mcp__loop *l, unsigned port, mcp_error *err)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int one = 1, e;
    memset(l, 0, sizeof *l);
    l->cfd = -1;
    mcp__loop_head_reset(&l->head);
#ifdef SOCK_CLOEXEC
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
#else
    if ((l->fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0) fcntl(l->fd, F_SETFD, FD_CLOEXEC);
#endif
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);      /* 127.0.0.1 only: never INADDR_ANY */
    if (port > 65535) { errno = EINVAL; goto fail; }
    if (l->fd < 0) goto fail;
    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);   /* a port in TIME_WAIT */
    if (bind(l->fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(l->fd, 8) < 0 ||
        getsockname(l->fd, (struct sockaddr *)&sa, &sl) < 0) goto fail;
    mcp__nonblock(l->fd);
    l->port = ntohs(sa.sin_port);
    mcp__ok(err);
    return MCP_OK;
fail:
    e = errno;
    mcp__loop_free(l);
    mcp__fail(err, MCP_ERR_IO, "Could not listen on 127.0.0.1:%u: %s.", port, strerror(e));
    if (err) err->sys_errno = e;
    return MCP_ERR_IO;
}

MCP__UNUSED static unsigned mcp__loop_port(const mcp__loop *l) { return l->port; }

/* Waits at most wait_ms (-1: no limit) until one of fds is ready: the client's one wait when
   the authorization flow's descriptors join the transport's. */
MCP__UNUSED static void mcp__wait_fds(const mcp_pollfd *fds, int n, int wait_ms)
{
    struct pollfd pf[64];
    int i;
    if (n > 64) { n = 64; if (wait_ms < 0 || wait_ms > 10) wait_ms = 10; }   /* the rest: soon */
    for (i = 0; i < n; i++) { pf[i].fd = fds[i].fd; pf[i].events = fds[i].events; pf[i].revents = 0; }
    (void)poll(pf, (nfds_t)n, wait_ms);
}

/* The descriptors to wait for now (fds has room for 2): the listening socket while a new
   connection could be taken, the connection while it is read or written. */
MCP__UNUSED static int mcp__loop_pollfds(const mcp__loop *l, mcp_pollfd *fds)
{
    int n = 0;
    if (l->done) return 0;
    if (l->cfd < 0 || (!l->head.len && !l->out_len)) { fds[n].fd = l->fd; fds[n++].events = POLLIN; }
    if (l->cfd >= 0) { fds[n].fd = l->cfd; fds[n++].events = (short)(l->out_len ? POLLOUT : POLLIN); }
    return n;
}

MCP__UNUSED static int64_t mcp__loop_due(const mcp__loop *l) { return l->cfd >= 0 && !l->done ? l->cdue : -1; }

static void mcp__loop_drop(mcp__loop *l)
{
    if (l->cfd >= 0) { shutdown(l->cfd, SHUT_WR); close(l->cfd); }
    l->cfd = -1; l->out_len = l->sent = 0;
    mcp__loop_head_reset(&l->head);
}

static void mcp__loop_reply(mcp__loop *l, int ok)
{
    char page[200];
    int n = snprintf(page, sizeof page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mcp.h</title>"
                     "</head><body><p>%s</p></body></html>\n", ok ? "The program has its answer. You can close "
                     "this window." : "This is not a request the program expected.");
    int r = snprintf(l->out, sizeof l->out, "HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\n"
                     "Content-Length: %d\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n%s",
                     ok ? "200 OK" : "400 Bad Request", n, page);
    l->out_len = r > 0 && (size_t)r < sizeof l->out ? (size_t)r : 0;
}

/* Takes the next connection (the current one, which has sent nothing, gives way): 0, or errno. */
static int mcp__loop_accept(mcp__loop *l)
{
    int fd;
#ifdef SO_NOSIGPIPE
    int one = 1;
#endif
    if ((fd = accept(l->fd, NULL, NULL)) < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED ? 0 : errno;
    if (l->cfd >= 0) mcp__loop_drop(l);
    fcntl(fd, F_SETFD, FD_CLOEXEC);                       /* neither is inherited from the listener */
    mcp__nonblock(fd);
#ifdef SO_NOSIGPIPE
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    l->cfd = fd;
    l->cdue = mcp_time_ms() + MCP__LOOP_IDLE_MS;
    return 0;
}

static void mcp__loop_read(mcp__loop *l)
{
    char buf[2048];
    long r;
    mcp_status st = MCP_AGAIN;
    while (st == MCP_AGAIN) {
        r = (long)recv(l->cfd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) { mcp__loop_drop(l); return; }       /* it went away before its head */
        st = mcp__loop_head_feed(&l->head, buf, (size_t)r, NULL);
    }
    if (st != MCP_OK) l->what = l->head.what;
    else if (l->expect && !l->expect(l->user, l->head.target)) {
        l->what = "a request for another path, or with another state, came";
        l->head.st = MCP_ERR_INVALID;                    /* answered 400, then dropped */
        st = MCP_ERR_INVALID;
    }
    mcp__loop_reply(l, st == MCP_OK);
}

static void mcp__loop_write(mcp__loop *l)
{
    long r;
    while (l->sent < l->out_len) {
        r = mcp__sock_send(l->cfd, l->out + l->sent, l->out_len - l->sent);
        if (r > 0) { l->sent += (size_t)r; continue; }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        break;                                            /* it went away: the reply is moot */
    }
    if (l->head.st == MCP_OK) {             /* the code came, answered or not: keep the target */
        l->done = 1;
        l->target = l->head.target;
        shutdown(l->cfd, SHUT_WR); close(l->cfd);
        l->cfd = -1;
        return;
    }
    mcp__loop_drop(l);
}

/* Waits at most wait_ms (-1: until something happens) and does what is ready: MCP_AGAIN, or
   MCP_OK once a GET was answered (its target in l->target, valid until mcp__loop_free), or
   MCP_ERR_IO when connections cannot be taken at all (out of descriptors). */
MCP__UNUSED static mcp_status mcp__loop_io(mcp__loop *l, int wait_ms, mcp_error *err)
{
    mcp_pollfd f[2];
    struct pollfd pf[2];
    int n, i, e;
    int64_t left = l->cdue - mcp_time_ms();
    if (l->done) { mcp__ok(err); return MCP_OK; }
    n = mcp__loop_pollfds(l, f);
    for (i = 0; i < n; i++) { pf[i].fd = f[i].fd; pf[i].events = f[i].events; pf[i].revents = 0; }
    if (l->cfd >= 0 && (wait_ms < 0 || wait_ms > left)) wait_ms = left < 0 ? 0 : (int)left;
    if (poll(pf, (nfds_t)n, wait_ms) < 0) pf[0].revents = 0;              /* EINTR: nothing ready */
    if (l->cfd >= 0 && !l->out_len) mcp__loop_read(l);       /* first: it may hold the request */
    if (pf[0].fd == l->fd && pf[0].revents && (l->cfd < 0 || (!l->head.len && !l->out_len))) {
        if ((e = mcp__loop_accept(l)) != 0) {
            mcp__fail(err, MCP_ERR_IO, "Could not take a connection on 127.0.0.1:%u: %s.", l->port, strerror(e));
            if (err) err->sys_errno = e;
            return MCP_ERR_IO;
        }
        if (l->cfd >= 0) mcp__loop_read(l);
    }
    if (l->cfd >= 0 && l->out_len) mcp__loop_write(l);
    if (l->cfd >= 0 && mcp_time_ms() >= l->cdue) { l->what = "a connection sent no whole request in 10 s"; mcp__loop_drop(l); }
    mcp__ok(err);
    return l->done ? MCP_OK : MCP_AGAIN;
}

/* The blocking convenience: io until a GET came (MCP_OK) or timeout_ms passed. */
MCP__UNUSED static mcp_status mcp__loop_wait(mcp__loop *l, int timeout_ms, mcp_error *err)
{
    int64_t end = mcp_time_ms() + timeout_ms, left;
    mcp_status st;
    while ((st = mcp__loop_io(l, (int)((left = end - mcp_time_ms()) < 0 ? 0 : left), err)) == MCP_AGAIN)
        if (mcp_time_ms() >= end)
            return mcp__fail(err, MCP_ERR_TIMEOUT, "No browser came back to http://127.0.0.1:%u/ within %d ms%s%s.",
                             l->port, timeout_ms, l->what ? "; a request was refused: " : "", l->what ? l->what : "");
    return st;
}
#endif /* MCP_NO_HTTP */

/* The built-in transports by mcp_transport_kind, each with what it needs of a description. */
static const struct mcp__builtin_s {
    const mcp_transport *t;                             /* NULL: left out of this build */
    int (*check)(const mcp_client_desc *d, mcp_error *err);
    const char *missing;
} mcp__builtin[] = {
#ifndef MCP_NO_STDIO
    { &mcp__stdio_transport, mcp__stdio_check, NULL },
#else
    { NULL, NULL, "no stdio transport (MCP_NO_STDIO)" },
#endif
#ifndef MCP_NO_HTTP
    { &mcp__http_transport, mcp__ht_check, NULL }, { &mcp__sse_transport, mcp__ht_check, NULL }
#else
    { NULL, NULL, "no HTTP transports (MCP_NO_HTTP)" }, { NULL, NULL, "no HTTP transports (MCP_NO_HTTP)" }
#endif
};

/* ============================================================================================
   >>auth
   ============================================================================================
   The authorization flow as a sans-I/O state machine: the client feeds it a challenge (the
   MCP server's 401 or 403 and its WWW-Authenticate values), then the answer to each HTTP request
   it asks for, then the browser's redirect; it says what to do next (fetch this, send the user
   to that URL, done: here is the token, failed: here is why). It never touches a socket: the
   client performs its requests with >>transport.once and runs the loopback receiver.

     challenge -> PRM (protected resource metadata: the advertised URL, else the well-known
                  ones) -> ASM (authorization server metadata, in the spec's order) -> client
                  identity (pre-registered, client ID metadata document, registration) ->
                  BROWSER (PKCE S256, state, resource) -> TOKEN -> DONE
     a server with no PRM at all (2025-03-26): ASM at the server's origin, else the default
                  endpoints /authorize, /token, /register there
     client_credentials: ... client identity -> TOKEN -> DONE
     a 401 with a refresh token in hand: REFRESH -> DONE (invalid_grant: the whole flow, once)

   Secrets (tokens, codes, the verifier, client secrets, assertions) go into requests and the
   store only; no sentence and no log line carries them. */
#if !defined(MCP_NO_AUTH) && !defined(MCP_NO_HTTP)
#define MCP__AUTH_MAX_DOC ((size_t)256 << 10)   /* a metadata, registration or token answer */
#define MCP__AUTH_STEP_UPS 2                    /* re-authorizations for a scope the token holds */
#define MCP__AUTH_TIMEOUT_MS 300000             /* the wait for the browser */
#define MCP__AUTH_EARLY_S 30                    /* refresh this long before the token expires */

enum {   /* the flow's states (a->state) */
    MCP__AU_IDLE = 0, MCP__AU_PRM, MCP__AU_ASM, MCP__AU_REGISTER, MCP__AU_BROWSER,
    MCP__AU_TOKEN, MCP__AU_REFRESH, MCP__AU_DONE, MCP__AU_FAILED
};
enum {   /* what the client is to do (mcp__auth_do.what) */
    MCP__AD_NOTHING = 0, MCP__AD_FETCH, MCP__AD_BROWSER, MCP__AD_DONE, MCP__AD_FAILED
};
enum {   /* token endpoint authentication */
    MCP__AM_NONE = 0, MCP__AM_BASIC, MCP__AM_POST, MCP__AM_JWT
};
#define MCP__AS_S256 1u                         /* code_challenge_methods_supported has S256 */
#define MCP__AS_ISS 2u                          /* authorization_response_iss_parameter_supported */
#define MCP__AS_CIMD 4u                         /* client_id_metadata_document_supported */
#define MCP__AS_DOC 8u                          /* the endpoints came from a metadata document */
#define MCP__AS_BASIC 16u                       /* token_endpoint_auth_methods_supported: ... */
#define MCP__AS_POST 32u
#define MCP__AS_NONE 64u
#define MCP__AS_JWT 128u
#define MCP__AS_OFFLINE 256u                    /* scopes_supported has offline_access */

typedef struct mcp__auth_do {
    int what;                            /* MCP__AD_* */
    const char *method, *url;            /* FETCH: the request; BROWSER: url to show */
    const char *const *headers;          /* FETCH: "Name: value", NULL-ended */
    const char *body; size_t body_len;
    const char *step;                    /* FETCH: what is being asked, for sentences */
} mcp__auth_do;

typedef struct mcp__auth {
    const mcp_auth *d;
    char *server;                        /* the MCP server's URL */
    char *resource;                      /* the resource parameter (RFC 8707) */
    char *version;                       /* MCP-Protocol-Version on discovery requests, or NULL */
    int state, i, legacy, act;           /* act: MCP__AD_* now due */
    char *prm_url;                       /* advertised in the challenge, or NULL */
    char *ch_scope;                      /* the challenge's scope */
    char *prm_scopes, *as_scopes;        /* scopes_supported, space-separated, or NULL */
    char *issuer, *authz_ep, *token_ep, *reg_ep;
    unsigned as;                         /* MCP__AS_* */
    char *client_id, *client_secret;
    int method;                          /* MCP__AM_* */
    char *redirect, *asked;              /* the redirect URI used; the scope asked for */
    char verifier[48], nonce[24];        /* PKCE code verifier (43 chars), state (22) */
    char *access, *refresh;
    int64_t expires;                     /* wall clock, seconds; 0: not said */
    int64_t lifetime;                    /* expires_in of the token in hand, seconds (0: not said) */
    int step_ups, restarts;
    int early;                           /* a refresh before expiry: its failure is quiet */
    int64_t issued_ms;                   /* mcp_time_ms() when the token in hand came */
    int quick401;                        /* 401s each soon after a new token: the server refuses them */
    mcp_buf url, body, key;              /* the request being asked for; a store key */
    char *hv[4];                         /* its headers' text */
    const char *hdrs[5];
    const char *step;
    mcp_error err;                       /* why it failed */
} mcp__auth;

static char *mcp__au_dupn(const char *s, size_t n)
{
    char *p = (char *)MCP_MALLOC(n + 1, NULL);
    if (p) { memcpy(p, s, n); p[n] = 0; }
    return p;
}

/* *dst = a copy of s (NULL: none); 0 when out of memory. */
static int mcp__au_set(char **dst, const char *s)
{
    char *p = s ? mcp__au_dupn(s, strlen(s)) : NULL;
    if (s && !p) return 0;
    MCP_FREE(*dst, NULL);
    *dst = p;
    return 1;
}

static void mcp__au_forget(char **s)   /* a secret: wiped, then freed */
{
    if (*s) { memset(*s, 0, strlen(*s)); MCP_FREE(*s, NULL); *s = NULL; }
}

static int mcp__au_fail(mcp__auth *a, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);
static int mcp__au_fail(mcp__auth *a, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    memset(&a->err, 0, sizeof a->err);
    a->err.status = st;
    va_start(ap, fmt);
    vsnprintf(a->err.message, sizeof a->err.message, fmt, ap);
    va_end(ap);
    a->state = MCP__AU_FAILED;
    return a->act = MCP__AD_FAILED;
}

static int mcp__au_nomem(mcp__auth *a)
{
    return mcp__au_fail(a, MCP_ERR_NOMEM, "Out of memory during the authorization flow.");
}

/* "scheme://host[:port]" of url into out (lower case; the port only when not the default). */
static int mcp__au_origin(const char *url, mcp_buf *out)
{
    mcp_http_url u;
    char port[16];
    size_t i, n;
    if (mcp_http_url_parse(&u, url, NULL) != MCP_OK) return 0;
    out->len = 0;
    n = strlen(u.host);
    if (mcp_buf_append(out, u.https ? "https://" : "http://", u.https ? 8 : 7) != MCP_OK ||
        (u.ipv6 && mcp_buf_append(out, "[", 1) != MCP_OK) || mcp_buf_reserve(out, n + 24) != MCP_OK) {
        mcp_http_url_free(&u); return 0;
    }
    for (i = 0; i < n; i++) out->data[out->len++] = (char)mcp__lower((unsigned char)u.host[i]);
    if (u.ipv6) out->data[out->len++] = ']';
    if (u.port != (u.https ? 443u : 80u)) {
        snprintf(port, sizeof port, ":%u", u.port);
        memcpy(out->data + out->len, port, strlen(port)); out->len += strlen(port);
    }
    out->data[out->len] = 0;
    mcp_http_url_free(&u);
    return 1;
}

/* The path of url, without its query and without a trailing '/' ("" for the root). */
static const char *mcp__au_path(const char *url, size_t *len)
{
    const char *p = strstr(url, "://"), *e;
    p = p ? strchr(p + 3, '/') : NULL;
    if (!p) { *len = 0; return ""; }
    for (e = p; *e && *e != '?' && *e != '#'; e++) {}
    while (e > p && e[-1] == '/') e--;
    *len = (size_t)(e - p);
    return p;
}

/* origin + well + path of base into a->url ("https://h/.well-known/x/path"); append: path + well. */
static int mcp__au_well(mcp__auth *a, const char *base, const char *well, int append)
{
    size_t pl;
    const char *path = mcp__au_path(base, &pl);
    if (!mcp__au_origin(base, &a->url)) return 0;
    if (append && mcp_buf_append(&a->url, path, pl) != MCP_OK) return 0;
    if (mcp_buf_append(&a->url, well, strlen(well)) != MCP_OK) return 0;
    if (!append && mcp_buf_append(&a->url, path, pl) != MCP_OK) return 0;
    return mcp_buf_append(&a->url, "", 1) == MCP_OK;
}

/* The canonical form of an MCP server's URL (RFC 8707): lower-case scheme and host, no
   default port, no query or fragment, no trailing '/'. */
static char *mcp__au_canonical(const char *url)
{
    mcp_buf b;
    size_t pl;
    const char *path = mcp__au_path(url, &pl);
    memset(&b, 0, sizeof b);
    if (!mcp__au_origin(url, &b) || mcp_buf_append(&b, path, pl) != MCP_OK || mcp_buf_append(&b, "", 1) != MCP_OK) {
        mcp_buf_free(&b); return NULL;
    }
    return b.data;
}

/* RFC 9728 section 3.3 with the prefix rule real servers rely on: the metadata's resource is
   the server's URL, or a parent of it on the same origin (path prefix at a '/'). */
static int mcp__au_resource_ok(const char *server, const char *resource)
{
    char *s = mcp__au_canonical(server), *r = mcp__au_canonical(resource);
    size_t rl = r ? strlen(r) : 0;
    int ok = s && r && !strncmp(s, r, rl) && (s[rl] == 0 || s[rl] == '/');
    MCP_FREE(s, NULL); MCP_FREE(r, NULL);
    return ok;
}

static const char *mcp__au_str(const mcp_json *o, const char *k)
{
    return mcp_json_str(mcp_json_get(o, k));
}

/* A JSON array of strings joined with spaces (NULL: absent or empty); has: the flag when one of
   them is `want`. */
static char *mcp__au_join(const mcp_json *arr, const char *want, int *has)
{
    mcp_buf b;
    size_t i;
    const char *s;
    memset(&b, 0, sizeof b);
    for (i = 0; i < mcp_json_len(arr) && mcp_json_typeof(arr) == MCP_JSON_ARRAY; i++) {
        if (!(s = mcp_json_str(mcp_json_at(arr, i)))) continue;
        if (want && has && !strcmp(s, want)) *has = 1;
        if ((b.len && mcp_buf_append(&b, " ", 1) != MCP_OK) || mcp_buf_append(&b, s, strlen(s)) != MCP_OK) {
            mcp_buf_free(&b); return NULL;
        }
    }
    if (b.len && mcp_buf_append(&b, "", 1) != MCP_OK) { mcp_buf_free(&b); return NULL; }
    return b.data;
}

/* Whether the space-separated list holds word. */
static int mcp__au_has_word(const char *list, const char *word, size_t wl)
{
    const char *p = list;
    while (p && *p) {
        size_t n;
        while (*p == ' ') p++;
        for (n = 0; p[n] && p[n] != ' '; n++) {}
        if (n && n == wl && !memcmp(p, word, n)) return 1;
        p += n;
    }
    return 0;
}

/* The union of two space-separated scope lists, a's order first (RFC 6749: a set). */
static char *mcp__au_union(const char *a, const char *b)
{
    mcp_buf u;
    const char *lists[2];
    int k;
    memset(&u, 0, sizeof u);
    lists[0] = a; lists[1] = b;
    if (mcp_buf_append(&u, "", 1) != MCP_OK) return NULL;
    u.len = 0;
    for (k = 0; k < 2; k++) {
        const char *p = lists[k];
        while (p && *p) {
            size_t n;
            while (*p == ' ') p++;
            for (n = 0; p[n] && p[n] != ' '; n++) {}
            if (n && !mcp__au_has_word(u.data, p, n)) {
                if ((u.len && mcp_buf_append(&u, " ", 1) != MCP_OK) || mcp_buf_append(&u, p, n) != MCP_OK ||
                    mcp_buf_append(&u, "", 1) != MCP_OK) { mcp_buf_free(&u); return NULL; }
                u.len--;
            }
            p += n;
        }
    }
    return u.data;
}

/* n random bytes as base64url into out (cap bytes). */
static int mcp__au_random(char *out, size_t cap, size_t n)
{
    unsigned char r[48];
    if (n > sizeof r || mcp_random(r, n, NULL) != MCP_OK) return 0;
    mcp_base64url(r, n, out, cap);
    memset(r, 0, sizeof r);
    return 1;
}

/* Store keys: "mcp-auth tokens SERVER" (the MCP server's canonical URL, known before any
   discovery, not the resource its metadata names; the value names the issuer and resource: a
   token is used only with the server that issued it), "mcp-auth client ISSUER" (a registration),
   "mcp-auth flow SERVER" (an authorization waiting for its browser: the verifier and state, so
   another run of the program can finish it with mcp_client_auth_redirect). */
static const char *mcp__au_key(mcp__auth *a, const char *kind)
{
    int by_server = strcmp(kind, "client") != 0;        /* tokens, flow: this server's */
    char *home = by_server ? mcp__au_canonical(a->server) : NULL;
    const char *of = home ? home : a->issuer ? a->issuer : "";
    int ok;
    if (!home && by_server) return NULL;
    a->key.len = 0;
    ok = mcp_buf_append(&a->key, "mcp-auth ", 9) == MCP_OK && mcp_buf_append(&a->key, kind, strlen(kind)) == MCP_OK &&
         mcp_buf_append(&a->key, " ", 1) == MCP_OK && mcp_buf_append(&a->key, of, strlen(of) + 1) == MCP_OK;
    MCP_FREE(home, NULL);
    return ok ? a->key.data : NULL;
}

/* Parses a JSON answer body; NULL with the flow failed (a sentence naming the step). */
static mcp_json_doc *mcp__au_doc(mcp__auth *a, int status, const char *ctype, const char *body, size_t len)
{
    mcp_json_opts o;
    mcp_json_doc *doc;
    mcp_error pe;
    int json = !ctype || mcp__prefix_ci(ctype, "application/json") || strstr(ctype, "json");
    memset(&o, 0, sizeof o);
    o.max_size = MCP__AUTH_MAX_DOC;
    if (!json && (status < 200 || status > 299)) {       /* an error page: its status says it */
        mcp__au_fail(a, MCP_ERR_HTTP, "%s answered %d (a %.40s page, not a JSON error).", a->step, status, ctype);
        return NULL;
    }
    if (!json) {
        mcp__au_fail(a, MCP_ERR_PROTOCOL, "%s answered with content type \"%.60s\", not JSON.", a->step, ctype);
        return NULL;
    }
    if (!(doc = mcp_json_parse_ex(body, len, &o, &pe)) || mcp_json_typeof(mcp_json_root(doc)) != MCP_JSON_OBJECT) {
        mcp_json_free(doc);
        mcp__au_fail(a, pe.status == MCP_ERR_LIMIT ? MCP_ERR_LIMIT : MCP_ERR_PROTOCOL,
                     "%s answered with a body that is not a JSON object (%s).", a->step,
                     doc ? "another JSON value" : pe.message);
        return NULL;
    }
    return doc;
}

/* An authorization server is reached over https://, or over http:// on this machine only:
   codes, tokens and secrets must not cross a network in the clear. */
static int mcp__au_safe(const char *url)
{
    mcp_http_url u;
    int ok;
    if (mcp_http_url_parse(&u, url, NULL) != MCP_OK) return 0;
    ok = u.https || !strcmp(u.host, "127.0.0.1") || !strcmp(u.host, "::1") || mcp__ieq(u.host, strlen(u.host), "localhost");
    mcp_http_url_free(&u);
    return ok;
}

static int mcp__au_unsafe(mcp__auth *a, const char *what, const char *url)
{
    char head[200];
    snprintf(head, sizeof head, "%.*s", (int)strcspn(url, "?#"), url);
    return mcp__au_fail(a, MCP_ERR_AUTH, "%s is %.150s, which is not https://: codes and tokens would cross the "
                        "network unencrypted, so the client does not use it (http:// only on this machine).",
                        what, head);
}

/* Sets the request to make: method, a->url, the body so far, the headers. */
static int mcp__au_fetch(mcp__auth *a, const char *step, int form, int json)
{
    int n = 0, k;
    if (a->state >= MCP__AU_ASM && !mcp__au_safe(a->url.data)) return mcp__au_unsafe(a, step, a->url.data);
    for (k = 0; k < 4; k++) mcp__au_forget(&a->hv[k]);
    a->hdrs[n++] = "Accept: application/json";
    if (form) a->hdrs[n++] = "Content-Type: application/x-www-form-urlencoded";
    if (json) a->hdrs[n++] = "Content-Type: application/json";
    if (a->version && a->state <= MCP__AU_ASM) {
        size_t vl = strlen(a->version) + 24;
        if (!(a->hv[0] = (char *)MCP_MALLOC(vl, NULL))) return mcp__au_nomem(a);
        snprintf(a->hv[0], vl, "MCP-Protocol-Version: %s", a->version);
        a->hdrs[n++] = a->hv[0];
    }
    a->hdrs[n] = NULL;
    a->step = step;
    return a->act = MCP__AD_FETCH;
}

/* ---- discovery: protected resource metadata, then authorization server metadata ---------- */

static int mcp__au_prm_next(mcp__auth *a)
{
    size_t pl;
    a->state = MCP__AU_PRM;
    mcp__au_path(a->server, &pl);
    a->body.len = 0;
    if (a->prm_url) {                    /* the challenge's word goes: no guessing besides it */
        if (a->i > 0) return -1;
        a->url.len = 0;
        if (mcp_buf_append(&a->url, a->prm_url, strlen(a->prm_url) + 1) != MCP_OK) return mcp__au_nomem(a);
    } else if (a->i == 0 && pl) {
        if (!mcp__au_well(a, a->server, "/.well-known/oauth-protected-resource", 0)) return mcp__au_nomem(a);
    } else if (a->i <= 1) {
        a->i = 1;
        if (!mcp__au_well(a, a->server, "/.well-known/oauth-protected-resource", 1) ||
            (a->url.len = 0, !mcp__au_origin(a->server, &a->url)) ||
            mcp_buf_append(&a->url, "/.well-known/oauth-protected-resource", 38) != MCP_OK)
            return mcp__au_nomem(a);
    } else return -1;
    return mcp__au_fetch(a, "The MCP server's protected resource metadata", 0, 0);
}

static int mcp__au_asm_next(mcp__auth *a);

static int mcp__au_prm_answer(mcp__auth *a, const char *ctype, const char *body, size_t len)
{
    mcp_json_doc *doc = mcp__au_doc(a, 200, ctype, body, len);
    const mcp_json *r, *as;
    const char *res, *iss;
    int off = 0;
    if (!doc) return a->act;
    r = mcp_json_root(doc);
    res = mcp__au_str(r, "resource");
    as = mcp_json_get(r, "authorization_servers");
    iss = mcp_json_str(mcp_json_at(as, 0));
    if (!res || !mcp__au_resource_ok(a->server, res)) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The MCP server's protected resource metadata names the resource \"%.200s\", "
                     "which is not %.200s: its tokens would be for another server, so the flow stops here.",
                     res ? res : "(none)", a->resource);
    } else if (!iss || mcp_json_typeof(as) != MCP_JSON_ARRAY) {
        mcp__au_fail(a, MCP_ERR_PROTOCOL, "The MCP server's protected resource metadata lists no "
                     "authorization_servers.");
    } else if (!mcp__au_set(&a->resource, res) || !mcp__au_set(&a->issuer, iss)) {
        mcp__au_nomem(a);
    } else {
        MCP_FREE(a->prm_scopes, NULL);
        a->prm_scopes = mcp__au_join(mcp_json_get(r, "scopes_supported"), NULL, &off);
        mcp_json_free(doc);
        a->i = 0;
        return mcp__au_asm_next(a);
    }
    mcp_json_free(doc);
    return a->act;
}

/* Authorization server metadata URLs, in the spec's order: with a path, RFC 8414 inserted,
   OpenID inserted, OpenID appended; without, the two root forms. 2025-03-26 (no resource
   metadata): the MCP server's origin only, then the default endpoints. */
static int mcp__au_asm_next(mcp__auth *a)
{
    size_t pl;
    int ok;
    a->state = MCP__AU_ASM;
    mcp__au_path(a->issuer, &pl);
    if (a->legacy) {
        if (a->i > 0) return -1;
        ok = mcp__au_well(a, a->issuer, "/.well-known/oauth-authorization-server", 0);
    } else if (a->i == 0) ok = mcp__au_well(a, a->issuer, "/.well-known/oauth-authorization-server", 0);
    else if (a->i == 1) ok = mcp__au_well(a, a->issuer, "/.well-known/openid-configuration", 0);
    else if (a->i == 2 && pl) ok = mcp__au_well(a, a->issuer, "/.well-known/openid-configuration", 1);
    else return -1;
    if (!ok) return mcp__au_nomem(a);
    return mcp__au_fetch(a, "The authorization server's metadata", 0, 0);
}

static unsigned mcp__au_methods(const mcp_json *list)
{
    static const char *const names[] = { "client_secret_basic", "client_secret_post", "none", "private_key_jwt" };
    unsigned f = 0, k;
    size_t i;
    if (!list) return MCP__AS_BASIC;     /* RFC 8414: absent means client_secret_basic */
    for (i = 0; i < mcp_json_len(list); i++)
        for (k = 0; k < 4; k++)
            if (mcp_json_str(mcp_json_at(list, i)) && !strcmp(mcp_json_str(mcp_json_at(list, i)), names[k]))
                f |= MCP__AS_BASIC << k;
    return f;
}

static int mcp__au_client(mcp__auth *a);
static int mcp__au_register(mcp__auth *a);

static int mcp__au_asm_answer(mcp__auth *a, const char *ctype, const char *body, size_t len)
{
    mcp_json_doc *doc = mcp__au_doc(a, 200, ctype, body, len);
    const mcp_json *r, *ccm;
    const char *iss;
    int s256 = 0, off = 0;
    if (!doc) return a->act;
    r = mcp_json_root(doc);
    iss = mcp__au_str(r, "issuer");
    ccm = mcp_json_get(r, "code_challenge_methods_supported");
    MCP_FREE(mcp__au_join(ccm, "S256", &s256), NULL);
    if (a->legacy && iss && !mcp__au_set(&a->issuer, iss)) {    /* 2025-03-26: the MCP server's own */
        mcp__au_nomem(a);
    } else if (!iss || strcmp(iss, a->issuer)) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server's metadata at %.200s names the issuer \"%.200s\", "
                     "not \"%.200s\" it was fetched for: it must not be used.", a->url.data, iss ? iss : "(none)",
                     a->issuer);
    } else if (!s256 && a->d->grant == MCP_AUTH_CODE) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server %.200s does not list S256 in "
                     "code_challenge_methods_supported: the MCP specification requires PKCE with S256, so "
                     "the client does not go on.", a->issuer);
    } else if (!mcp__au_set(&a->authz_ep, mcp__au_str(r, "authorization_endpoint")) ||
               !mcp__au_set(&a->token_ep, mcp__au_str(r, "token_endpoint")) ||
               !mcp__au_set(&a->reg_ep, mcp__au_str(r, "registration_endpoint"))) {
        mcp__au_nomem(a);
    } else if (!a->token_ep || (a->d->grant == MCP_AUTH_CODE && !a->authz_ep)) {
        mcp__au_fail(a, MCP_ERR_PROTOCOL, "The authorization server's metadata has no %s.",
                     a->token_ep ? "authorization_endpoint" : "token_endpoint");
    } else {
        a->as = MCP__AS_DOC | (s256 ? MCP__AS_S256 : 0) | mcp__au_methods(mcp_json_get(r, "token_endpoint_auth_methods_supported"));
        if (mcp_json_is_true(mcp_json_get(r, "authorization_response_iss_parameter_supported"))) a->as |= MCP__AS_ISS;
        if (mcp_json_is_true(mcp_json_get(r, "client_id_metadata_document_supported"))) a->as |= MCP__AS_CIMD;
        MCP_FREE(a->as_scopes, NULL);
        a->as_scopes = mcp__au_join(mcp_json_get(r, "scopes_supported"), "offline_access", &off);
        if (off) a->as |= MCP__AS_OFFLINE;
        mcp_json_free(doc);
        return mcp__au_client(a);
    }
    mcp_json_free(doc);
    return a->act;
}

/* 2025-03-26 servers without any metadata: the default endpoints at the server's origin. */
static int mcp__au_defaults(mcp__auth *a)
{
    static const char *const paths[] = { "/authorize", "/token", "/register" };
    char **eps[3];
    int k;
    eps[0] = &a->authz_ep; eps[1] = &a->token_ep; eps[2] = &a->reg_ep;
    for (k = 0; k < 3; k++) {
        if (!mcp__au_origin(a->server, &a->url) || mcp_buf_append(&a->url, paths[k], strlen(paths[k]) + 1) != MCP_OK ||
            !mcp__au_set(eps[k], a->url.data))
            return mcp__au_nomem(a);
    }
    a->as = MCP__AS_S256 | MCP__AS_BASIC | MCP__AS_POST | MCP__AS_NONE;
    return mcp__au_client(a);
}

/* ---- client identity ---------------------------------------------------------------------- */

static int mcp__au_method_of(const char *name)
{
    if (!name) return -1;
    if (!strcmp(name, "none")) return MCP__AM_NONE;
    if (!strcmp(name, "client_secret_basic")) return MCP__AM_BASIC;
    if (!strcmp(name, "client_secret_post")) return MCP__AM_POST;
    if (!strcmp(name, "private_key_jwt")) return MCP__AM_JWT;
    return -1;
}

/* The method for credentials with or without a secret, among what the server takes. */
static int mcp__au_pick(const mcp__auth *a, int has_secret)
{
    if (a->d->sign && (a->as & MCP__AS_JWT) && !has_secret) return MCP__AM_JWT;
    if (!has_secret) return MCP__AM_NONE;
    if (a->as & MCP__AS_BASIC) return MCP__AM_BASIC;
    if (a->as & MCP__AS_POST) return MCP__AM_POST;
    return MCP__AM_BASIC;
}

static int mcp__au_authorize(mcp__auth *a);
static int mcp__au_token(mcp__auth *a, int refresh, const char *code);

static int mcp__au_identified(mcp__auth *a)
{
    return a->d->grant == MCP_AUTH_CLIENT_CREDENTIALS ? mcp__au_token(a, 0, NULL) : mcp__au_authorize(a);
}

/* Stored registration ({"client_id":...,"client_secret":...,"method":...}) for this issuer. */
static int mcp__au_load_client(mcp__auth *a)
{
    mcp_buf v;
    mcp_json_doc *doc;
    const char *key = mcp__au_key(a, "client");
    int ok = 0;
    memset(&v, 0, sizeof v);
    if (!key || !a->d->load || a->d->load(a->d->user, key, &v) != 1) { mcp_buf_free(&v); return 0; }
    if ((doc = mcp_json_parse(v.data ? v.data : "", v.len, NULL)) != NULL) {
        const mcp_json *r = mcp_json_root(doc);
        if (mcp__au_str(r, "client_id") && mcp__au_set(&a->client_id, mcp__au_str(r, "client_id")) &&
            mcp__au_set(&a->client_secret, mcp__au_str(r, "client_secret"))) {
            a->method = mcp__au_method_of(mcp__au_str(r, "method"));
            if (a->method < 0) a->method = mcp__au_pick(a, a->client_secret != NULL);
            ok = 1;
        }
        mcp_json_free(doc);
    }
    if (v.data) memset(v.data, 0, v.len);
    mcp_buf_free(&v);
    return ok;
}

static const char *const mcp__au_method_names[] = { "none", "client_secret_basic", "client_secret_post", "private_key_jwt" };

static void mcp__au_save_client(mcp__auth *a)
{
    mcp_jw w;
    char *text;
    const char *key = mcp__au_key(a, "client");
    if (!key || !a->d->save) return;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "client_id"); mcp_jw_str(&w, a->client_id);
    if (a->client_secret) { mcp_jw_key(&w, "client_secret"); mcp_jw_str(&w, a->client_secret); }
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, mcp__au_method_names[a->method]);
    mcp_jw_obj_end(&w);
    if ((text = mcp_jw_finish(&w, NULL, NULL)) != NULL) {
        a->d->save(a->d->user, key, text);
        memset(text, 0, strlen(text)); mcp_free(text);
    }
}

/* In the spec's order: pre-registered for this issuer; a client ID metadata document where
   the server takes one; a registration kept from before; dynamic registration. */
static int mcp__au_client(mcp__auth *a)
{
    size_t k;
    for (k = 0; k < a->d->nclients; k++) {
        const mcp_auth_client *pc = &a->d->clients[k];
        if (!pc->client_id || (pc->issuer && strcmp(pc->issuer, a->issuer))) continue;
        if (!mcp__au_set(&a->client_id, pc->client_id) || !mcp__au_set(&a->client_secret, pc->client_secret))
            return mcp__au_nomem(a);
        a->method = mcp__au_method_of(pc->auth_method);
        if (a->method < 0) a->method = mcp__au_pick(a, pc->client_secret != NULL);
        return mcp__au_identified(a);
    }
    if (a->d->grant == MCP_AUTH_CLIENT_CREDENTIALS)
        return mcp__au_fail(a, MCP_ERR_AUTH, "The client_credentials grant needs credentials registered with the "
                            "authorization server %.200s: put them in desc.auth->clients.", a->issuer);
    if (a->d->client_id_metadata_url && (a->as & MCP__AS_CIMD)) {
        if (!mcp__au_set(&a->client_id, a->d->client_id_metadata_url) || !mcp__au_set(&a->client_secret, NULL))
            return mcp__au_nomem(a);
        a->method = a->d->sign && (a->as & MCP__AS_JWT) ? MCP__AM_JWT : MCP__AM_NONE;
        return mcp__au_identified(a);
    }
    if (mcp__au_load_client(a)) return mcp__au_identified(a);
    if (!a->reg_ep)
        return mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server %.200s offers no dynamic client registration%s: "
                            "the program must supply a client ID registered there (desc.auth->clients)%s.", a->issuer,
                            a->d->client_id_metadata_url ? " and takes no client ID metadata document" : "",
                            a->d->client_id_metadata_url ? "" : " or a client ID metadata document URL");
    return mcp__au_register(a);
}

/* RFC 7591 registration, as a native application when the redirect is to the loopback. */
static int mcp__au_register(mcp__auth *a)
{
    mcp_jw w;
    char *text;
    size_t len;
    int loop = !a->d->redirect_uri || mcp__prefix_ci(a->d->redirect_uri, "http://127.0.0.1") ||
               mcp__prefix_ci(a->d->redirect_uri, "http://localhost") || mcp__prefix_ci(a->d->redirect_uri, "http://[::1]");
    a->state = MCP__AU_REGISTER;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "client_name"); mcp_jw_str(&w, a->d->client_name ? a->d->client_name : "mcp.h");
    mcp_jw_key(&w, "redirect_uris"); mcp_jw_arr_begin(&w); mcp_jw_str(&w, a->redirect); mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "grant_types"); mcp_jw_arr_begin(&w);
    mcp_jw_str(&w, "authorization_code"); mcp_jw_str(&w, "refresh_token"); mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "response_types"); mcp_jw_arr_begin(&w); mcp_jw_str(&w, "code"); mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "token_endpoint_auth_method"); mcp_jw_str(&w, "none");
    mcp_jw_key(&w, "application_type"); mcp_jw_str(&w, loop ? "native" : "web");
    mcp_jw_obj_end(&w);
    if (!(text = mcp_jw_finish(&w, &len, NULL))) return mcp__au_nomem(a);
    a->body.len = 0;
    a->url.len = 0;
    if (mcp_buf_append(&a->body, text, len) != MCP_OK || mcp_buf_append(&a->url, a->reg_ep, strlen(a->reg_ep) + 1) != MCP_OK) {
        mcp_free(text); return mcp__au_nomem(a);
    }
    mcp_free(text);
    return mcp__au_fetch(a, "The authorization server's registration endpoint", 0, 1);
}

static int mcp__au_register_answer(mcp__auth *a, const char *ctype, const char *body, size_t len)
{
    mcp_json_doc *doc = mcp__au_doc(a, 200, ctype, body, len);
    const mcp_json *r;
    if (!doc) return a->act;
    r = mcp_json_root(doc);
    if (!mcp__au_str(r, "client_id")) {
        mcp__au_fail(a, MCP_ERR_PROTOCOL, "The authorization server's registration endpoint answered without a client_id.");
    } else if (!mcp__au_set(&a->client_id, mcp__au_str(r, "client_id")) ||
               !mcp__au_set(&a->client_secret, mcp__au_str(r, "client_secret"))) {
        mcp__au_nomem(a);
    } else {
        a->method = mcp__au_method_of(mcp__au_str(r, "token_endpoint_auth_method"));
        if (a->method < 0 || (a->method != MCP__AM_NONE && a->method != MCP__AM_JWT && !a->client_secret))
            a->method = mcp__au_pick(a, a->client_secret != NULL);
        mcp_json_free(doc);
        mcp__au_save_client(a);
        return mcp__au_authorize(a);
    }
    mcp_json_free(doc);
    return a->act;
}

/* ---- the browser ------------------------------------------------------------------------- */

/* The scope to ask for: the challenge's, else the resource's scopes_supported, else none;
   with the program's own and, where offered and wanted, offline_access; after a step-up the
   union with what was asked before. */
static int mcp__au_scope(mcp__auth *a)
{
    char *s = mcp__au_union(a->asked, a->ch_scope ? a->ch_scope : a->asked ? NULL : a->prm_scopes), *t;
    if (!s) return 0;
    t = mcp__au_union(s, a->d->scope);
    MCP_FREE(s, NULL);
    if (!t) return 0;
    if (a->d->offline_access && (a->as & MCP__AS_OFFLINE)) {
        s = mcp__au_union(t, "offline_access");
        MCP_FREE(t, NULL);
        if (!(t = s)) return 0;
    }
    MCP_FREE(a->asked, NULL);
    a->asked = t;
    return 1;
}

/* The authorization in flight, for the store (over: it is removed). */
static void mcp__au_save_flow(mcp__auth *a, int over)
{
    mcp_jw w;
    char *text = NULL;
    const char *key = mcp__au_key(a, "flow");
    if (!key || !a->d->save) return;
    if (!over) {
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "issuer"); mcp_jw_str(&w, a->issuer);
        mcp_jw_key(&w, "token_endpoint"); mcp_jw_str(&w, a->token_ep);
        mcp_jw_key(&w, "client_id"); mcp_jw_str(&w, a->client_id);
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, mcp__au_method_names[a->method]);
        mcp_jw_key(&w, "redirect_uri"); mcp_jw_str(&w, a->redirect);
        mcp_jw_key(&w, "resource"); mcp_jw_str(&w, a->resource);
        mcp_jw_key(&w, "scope"); mcp_jw_str(&w, a->asked ? a->asked : "");
        mcp_jw_key(&w, "code_verifier"); mcp_jw_str(&w, a->verifier);
        mcp_jw_key(&w, "state"); mcp_jw_str(&w, a->nonce);
        mcp_jw_key(&w, "iss"); mcp_jw_bool(&w, (a->as & MCP__AS_ISS) != 0);
        mcp_jw_obj_end(&w);
        if (!(text = mcp_jw_finish(&w, NULL, NULL))) return;
    }
    a->d->save(a->d->user, key, text);
    if (text) { memset(text, 0, strlen(text)); mcp_free(text); }
}

/* The secret of the client a record names: pre-registered, or its kept registration. */
static void mcp__au_find_secret(mcp__auth *a)
{
    size_t k;
    char *id;
    for (k = 0; k < a->d->nclients; k++)
        if ((!a->d->clients[k].issuer || !strcmp(a->d->clients[k].issuer, a->issuer)) &&
            a->d->clients[k].client_id && !strcmp(a->d->clients[k].client_id, a->client_id))
            mcp__au_set(&a->client_secret, a->d->clients[k].client_secret);
    if (a->client_secret || (a->method != MCP__AM_BASIC && a->method != MCP__AM_POST)) return;
    id = a->client_id;
    a->client_id = NULL;
    if (!mcp__au_load_client(a) || strcmp(a->client_id, id)) mcp__au_forget(&a->client_secret);
    MCP_FREE(a->client_id, NULL);
    a->client_id = id;
}

/* A flow another run left waiting for its browser: the state to finish it from. */
static void mcp__au_load_flow(mcp__auth *a)
{
    mcp_buf v;
    mcp_json_doc *doc;
    const mcp_json *r;
    const char *key = mcp__au_key(a, "flow"), *ver, *st;
    memset(&v, 0, sizeof v);
    if (!key || !a->d->load || a->d->load(a->d->user, key, &v) != 1) { mcp_buf_free(&v); return; }
    if ((doc = mcp_json_parse(v.data ? v.data : "", v.len, NULL)) != NULL) {
        r = mcp_json_root(doc);
        ver = mcp__au_str(r, "code_verifier"); st = mcp__au_str(r, "state");
        if (ver && st && strlen(ver) < sizeof a->verifier && strlen(st) < sizeof a->nonce &&
            mcp__au_str(r, "issuer") && mcp__au_str(r, "token_endpoint") && mcp__au_str(r, "client_id") &&
            mcp__au_str(r, "redirect_uri") && mcp__au_str(r, "resource") &&
            mcp__au_set(&a->issuer, mcp__au_str(r, "issuer")) && mcp__au_set(&a->token_ep, mcp__au_str(r, "token_endpoint")) &&
            mcp__au_set(&a->client_id, mcp__au_str(r, "client_id")) && mcp__au_set(&a->redirect, mcp__au_str(r, "redirect_uri")) &&
            mcp__au_set(&a->resource, mcp__au_str(r, "resource")) && mcp__au_set(&a->asked, mcp__au_str(r, "scope"))) {
            memcpy(a->verifier, ver, strlen(ver) + 1); memcpy(a->nonce, st, strlen(st) + 1);
            a->method = mcp__au_method_of(mcp__au_str(r, "method"));
            if (a->method < 0) a->method = MCP__AM_NONE;
            if (mcp_json_is_true(mcp_json_get(r, "iss"))) a->as |= MCP__AS_ISS;
            mcp__au_find_secret(a);
            a->state = MCP__AU_BROWSER;
        }
        mcp_json_free(doc);
    }
    if (v.data) memset(v.data, 0, v.len);
    mcp_buf_free(&v);
}

static int mcp__au_authorize(mcp__auth *a)
{
    unsigned char h[32];
    char challenge[48];
    mcp_error e;
    a->state = MCP__AU_BROWSER;
    if (!mcp__au_safe(a->authz_ep)) return mcp__au_unsafe(a, "The authorization endpoint", a->authz_ep);
    if (!mcp__au_random(a->verifier, sizeof a->verifier, 32) || !mcp__au_random(a->nonce, sizeof a->nonce, 16))
        return mcp__au_fail(a, MCP_ERR_IO, "Could not read the system's random source for the authorization flow.");
    mcp_sha256(a->verifier, strlen(a->verifier), h);
    mcp_base64url(h, sizeof h, challenge, sizeof challenge);
    if (!mcp__au_scope(a)) return mcp__au_nomem(a);
    a->url.len = 0;
    if (mcp_buf_append(&a->url, a->authz_ep, strlen(a->authz_ep)) != MCP_OK ||
        mcp_buf_append(&a->url, strchr(a->authz_ep, '?') ? "&" : "?", 1) != MCP_OK)
        return mcp__au_nomem(a);
    a->body.len = 0;                      /* the query, built as a form, then appended */
    if (mcp_http_form_append(&a->body, "response_type", "code", &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "client_id", a->client_id, &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "redirect_uri", a->redirect, &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "code_challenge", challenge, &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "code_challenge_method", "S256", &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "state", a->nonce, &e) != MCP_OK ||
        mcp_http_form_append(&a->body, "resource", a->resource, &e) != MCP_OK ||
        (a->asked && *a->asked && mcp_http_form_append(&a->body, "scope", a->asked, &e) != MCP_OK) ||
        /* OpenID Connect grants offline_access only with prompt=consent (Core, section 11) */
        (mcp__au_has_word(a->asked, "offline_access", 14) &&
         mcp_http_form_append(&a->body, "prompt", "consent", &e) != MCP_OK) ||
        mcp_buf_append(&a->url, a->body.data, a->body.len) != MCP_OK || mcp_buf_append(&a->url, "", 1) != MCP_OK)
        return mcp__au_nomem(a);
    a->body.len = 0;
    mcp__au_save_flow(a, 0);
    return a->act = MCP__AD_BROWSER;
}

/* The browser came back to the redirect URI: q is its query (or the whole URL or target). */
static int mcp__auth_redirect(mcp__auth *a, const char *q)
{
    mcp_buf code, st, iss, er;
    mcp_error e;
    const char *p = strchr(q, '?');
    size_t n;
    int r, has_iss;
    if (a->state != MCP__AU_BROWSER) return a->act;
    if (p) q = p + 1;
    n = strcspn(q, "#");
    memset(&code, 0, sizeof code); memset(&st, 0, sizeof st); memset(&iss, 0, sizeof iss); memset(&er, 0, sizeof er);
    if ((r = mcp_http_form_get(q, n, "state", &st, &e)) < 0 || (has_iss = mcp_http_form_get(q, n, "iss", &iss, &e)) < 0 ||
        mcp_http_form_get(q, n, "code", &code, &e) < 0 || mcp_http_form_get(q, n, "error", &er, &e) < 0) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server's redirect back to the client is malformed: %s", e.message);
    } else if (!r || strcmp(st.data ? st.data : "", a->nonce)) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The redirect back to the client carries %s state: it is not the answer to "
                     "this client's authorization request, and is ignored.", r ? "the wrong" : "no");
    } else if ((has_iss || (a->as & MCP__AS_ISS)) && (!has_iss || strcmp(iss.data ? iss.data : "", a->issuer))) {
        /* RFC 9207: a mix-up; whatever error it carries is not to be believed */
        mcp__au_fail(a, MCP_ERR_AUTH, "The redirect back to the client %s: it may come from another server, "
                     "so it is not used.", has_iss ? "names another issuer than the authorization server asked" :
                     "lacks the iss parameter its authorization server promises");
    } else if (er.data) {
        mcp_buf d;
        memset(&d, 0, sizeof d);
        if (mcp_http_form_get(q, n, "error_description", &d, &e) < 0) d.len = 0;
        mcp__au_fail(a, MCP_ERR_AUTH, "The authorization was refused: %.100s%s%.300s", er.data,
                     d.len ? ": " : ".", d.len ? d.data : "");
        mcp_buf_free(&d);
    } else if (!code.data || !code.len) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The redirect back to the client carries no authorization code.");
    } else {
        mcp__au_token(a, 0, code.data);
    }
    if (code.data) memset(code.data, 0, code.len);
    mcp_buf_free(&code); mcp_buf_free(&st); mcp_buf_free(&iss); mcp_buf_free(&er);
    if (a->state != MCP__AU_BROWSER) mcp__au_save_flow(a, 1);   /* answered: nothing waits now */
    return a->act;
}

/* ---- the token endpoint ------------------------------------------------------------------- */

/* A client assertion (RFC 7523) signed by the program: header.claims.signature. */
static int mcp__au_assertion(mcp__auth *a, mcp_error *e)
{
    mcp_jw w;
    mcp_buf in, sig;
    char *h, *c, jti[24], *enc;
    size_t hl, cl, el;
    int64_t now = (int64_t)time(NULL);
    int ok = 0;
    memset(&in, 0, sizeof in); memset(&sig, 0, sizeof sig);
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "alg"); mcp_jw_str(&w, a->d->sign_alg ? a->d->sign_alg : "RS256");
    mcp_jw_key(&w, "typ"); mcp_jw_str(&w, "JWT");
    mcp_jw_obj_end(&w);
    h = mcp_jw_finish(&w, &hl, NULL);
    if (!mcp__au_random(jti, sizeof jti, 16)) { mcp_free(h); return 0; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "iss"); mcp_jw_str(&w, a->client_id);
    mcp_jw_key(&w, "sub"); mcp_jw_str(&w, a->client_id);
    mcp_jw_key(&w, "aud"); mcp_jw_str(&w, a->issuer);
    mcp_jw_key(&w, "iat"); mcp_jw_int(&w, now);
    mcp_jw_key(&w, "exp"); mcp_jw_int(&w, now + 300);
    mcp_jw_key(&w, "jti"); mcp_jw_str(&w, jti);
    mcp_jw_obj_end(&w);
    c = mcp_jw_finish(&w, &cl, NULL);
    if (h && c && mcp_buf_reserve(&in, mcp_base64url(NULL, hl, NULL, 0) + mcp_base64url(NULL, cl, NULL, 0) + 4) == MCP_OK) {
        in.len = mcp_base64url(h, hl, in.data, in.cap);
        in.data[in.len++] = '.';
        in.len += mcp_base64url(c, cl, in.data + in.len, in.cap - in.len);
        if (a->d->sign(a->d->user, in.data, in.len, &sig, e) == MCP_OK && sig.len) {
            el = mcp_base64url(NULL, sig.len, NULL, 0);
            if ((enc = (char *)MCP_MALLOC(el + 1, NULL)) != NULL) {
                mcp_base64url(sig.data, sig.len, enc, el + 1);
                ok = mcp_http_form_append(&a->body, "client_assertion_type",
                                          "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", e) == MCP_OK &&
                     mcp_buf_append(&in, ".", 1) == MCP_OK && mcp_buf_append(&in, enc, el) == MCP_OK &&
                     mcp_buf_append(&in, "", 1) == MCP_OK &&
                     mcp_http_form_append(&a->body, "client_assertion", in.data, e) == MCP_OK;
                MCP_FREE(enc, NULL);
            }
        } else if (e->status == MCP_OK) mcp__fail(e, MCP_ERR_AUTH, "The program's signing callback made no signature.");
    }
    mcp_free(h); mcp_free(c); mcp_buf_free(&in); mcp_buf_free(&sig);
    return ok;
}

/* Basic authentication (RFC 6749 section 2.3.1): form-encoded id and secret, base64. */
static int mcp__au_basic(mcp__auth *a)
{
    mcp_buf pair;
    size_t n, i, pad;
    char *h;
    memset(&pair, 0, sizeof pair);
    if (mcp_http_form_append(&pair, "x", a->client_id, NULL) != MCP_OK ||
        mcp_buf_append(&pair, ":", 1) != MCP_OK) { mcp_buf_free(&pair); return 0; }
    {   /* "x=ID:" then the secret, encoded the same way */
        mcp_buf s;
        memset(&s, 0, sizeof s);
        if (mcp_http_form_append(&s, "x", a->client_secret ? a->client_secret : "", NULL) != MCP_OK ||
            mcp_buf_append(&pair, s.data + 2, s.len - 2) != MCP_OK) { mcp_buf_free(&s); mcp_buf_free(&pair); return 0; }
        memset(s.data, 0, s.len); mcp_buf_free(&s);
    }
    n = mcp_base64url(NULL, pair.len - 2, NULL, 0);
    pad = (4 - n % 4) % 4;
    if (!(h = (char *)MCP_MALLOC(n + pad + 24, NULL))) { mcp_buf_free(&pair); return 0; }
    memcpy(h, "Authorization: Basic ", 21);
    mcp_base64url(pair.data + 2, pair.len - 2, h + 21, n + 1);
    for (i = 21; i < 21 + n; i++) h[i] = h[i] == '-' ? '+' : h[i] == '_' ? '/' : h[i];
    for (i = 0; i < pad; i++) h[21 + n + i] = '=';
    h[21 + n + pad] = 0;
    memset(pair.data, 0, pair.len); mcp_buf_free(&pair);
    mcp__au_forget(&a->hv[1]);
    a->hv[1] = h;
    return 1;
}

/* The token request: a code (PKCE), a refresh token, or client credentials. */
static int mcp__au_token(mcp__auth *a, int refresh, const char *code)
{
    mcp_error e;
    int ok, n;
    memset(&e, 0, sizeof e);
    a->state = refresh ? MCP__AU_REFRESH : MCP__AU_TOKEN;
    a->body.len = 0;
    a->url.len = 0;
    if (mcp_buf_append(&a->url, a->token_ep, strlen(a->token_ep) + 1) != MCP_OK) return mcp__au_nomem(a);
    if (refresh)
        ok = mcp_http_form_append(&a->body, "grant_type", "refresh_token", &e) == MCP_OK &&
             mcp_http_form_append(&a->body, "refresh_token", a->refresh, &e) == MCP_OK;
    else if (code)
        ok = mcp_http_form_append(&a->body, "grant_type", "authorization_code", &e) == MCP_OK &&
             mcp_http_form_append(&a->body, "code", code, &e) == MCP_OK &&
             mcp_http_form_append(&a->body, "redirect_uri", a->redirect, &e) == MCP_OK &&
             mcp_http_form_append(&a->body, "code_verifier", a->verifier, &e) == MCP_OK;
    else
        ok = mcp_http_form_append(&a->body, "grant_type", "client_credentials", &e) == MCP_OK &&
             mcp__au_scope(a) && (!a->asked || !*a->asked ||
                                  mcp_http_form_append(&a->body, "scope", a->asked, &e) == MCP_OK);
    ok = ok && mcp_http_form_append(&a->body, "resource", a->resource, &e) == MCP_OK;
    if (ok && (a->method == MCP__AM_NONE || a->method == MCP__AM_POST || a->method == MCP__AM_JWT))
        ok = mcp_http_form_append(&a->body, "client_id", a->client_id, &e) == MCP_OK;
    if (ok && a->method == MCP__AM_POST)
        ok = mcp_http_form_append(&a->body, "client_secret", a->client_secret ? a->client_secret : "", &e) == MCP_OK;
    if (ok && a->method == MCP__AM_JWT) {
        if (!a->d->sign)
            return mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server wants private_key_jwt and the program "
                                "supplies no signing callback (desc.auth->sign).");
        if (!mcp__au_assertion(a, &e))
            return mcp__au_fail(a, e.status ? e.status : MCP_ERR_NOMEM, "Could not make the client assertion: %s",
                                e.status ? e.message : "out of memory.");
    }
    if (!ok) return mcp__au_nomem(a);
    if (mcp__au_fetch(a, "The authorization server's token endpoint", 1, 0) != MCP__AD_FETCH) return a->act;
    if (a->method == MCP__AM_BASIC) {
        if (!mcp__au_basic(a)) return mcp__au_nomem(a);
        for (n = 0; a->hdrs[n]; n++) {}
        a->hdrs[n] = a->hv[1]; a->hdrs[n + 1] = NULL;
    }
    return a->act;
}

static void mcp__au_save_tokens(mcp__auth *a)
{
    mcp_jw w;
    char *text;
    const char *key = mcp__au_key(a, "tokens");
    if (!key || !a->d->save) return;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "issuer"); mcp_jw_str(&w, a->issuer);
    mcp_jw_key(&w, "resource"); mcp_jw_str(&w, a->resource);
    mcp_jw_key(&w, "token_endpoint"); mcp_jw_str(&w, a->token_ep);
    mcp_jw_key(&w, "client_id"); mcp_jw_str(&w, a->client_id);
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, mcp__au_method_names[a->method]);
    mcp_jw_key(&w, "access_token"); mcp_jw_str(&w, a->access);
    if (a->refresh) { mcp_jw_key(&w, "refresh_token"); mcp_jw_str(&w, a->refresh); }
    if (a->expires) { mcp_jw_key(&w, "expires_at"); mcp_jw_int(&w, a->expires); }
    if (a->lifetime) { mcp_jw_key(&w, "lifetime"); mcp_jw_int(&w, a->lifetime); }
    if (a->asked && *a->asked) { mcp_jw_key(&w, "scope"); mcp_jw_str(&w, a->asked); }
    mcp_jw_obj_end(&w);
    if ((text = mcp_jw_finish(&w, NULL, NULL)) != NULL) {
        a->d->save(a->d->user, key, text);
        memset(text, 0, strlen(text)); mcp_free(text);
    }
}

static int mcp__au_restart(mcp__auth *a);
static int mcp__au_quiet(mcp__auth *a);

static int mcp__au_token_answer(mcp__auth *a, int status, const char *ctype, const char *body, size_t len)
{
    mcp_json_doc *doc = mcp__au_doc(a, status, ctype, body, len);
    const mcp_json *r;
    const char *tok, *type, *err;
    int64_t exp = 0;
    if (!doc) return a->early ? mcp__au_quiet(a) : a->act;
    r = mcp_json_root(doc);
    tok = mcp__au_str(r, "access_token"); type = mcp__au_str(r, "token_type"); err = mcp__au_str(r, "error");
    if ((status != 200 || err) && a->early) {
        mcp_json_free(doc);
        return mcp__au_quiet(a);
    }
    if (status != 200 || err) {
        int grant = err && !strcmp(err, "invalid_grant");
        if (grant && a->state == MCP__AU_REFRESH && !a->restarts) {
            mcp__au_forget(&a->access); mcp__au_forget(&a->refresh);
            if (a->d->save && mcp__au_key(a, "tokens")) a->d->save(a->d->user, a->key.data, NULL);
            mcp_json_free(doc);
            a->restarts++;
            return mcp__au_restart(a);
        }
        mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server's token endpoint answered %d: %.60s%s%.200s", status,
                     err ? err : "(no error code)", mcp__au_str(r, "error_description") ? ": " : ".",
                     mcp__au_str(r, "error_description") ? mcp__au_str(r, "error_description") : "");
    } else if (!tok || !*tok || !type || !mcp__ieq(type, strlen(type), "bearer")) {
        mcp__au_fail(a, MCP_ERR_PROTOCOL, "The authorization server's token endpoint answered without %s.",
                     tok && *tok ? "token_type Bearer" : "an access_token");
    } else {
        mcp__au_forget(&a->access);
        if (!mcp__au_set(&a->access, tok)) { mcp_json_free(doc); return mcp__au_nomem(a); }
        if (mcp__au_str(r, "refresh_token")) {      /* rotated: the new one; none: keep the old */
            mcp__au_forget(&a->refresh);
            if (!mcp__au_set(&a->refresh, mcp__au_str(r, "refresh_token"))) { mcp_json_free(doc); return mcp__au_nomem(a); }
        }
        a->expires = mcp_json_int64(mcp_json_get(r, "expires_in"), &exp) && exp > 0 ? (int64_t)time(NULL) + exp : 0;
        a->lifetime = a->expires ? exp : 0;
        if (mcp__au_str(r, "scope") && !mcp__au_set(&a->asked, mcp__au_str(r, "scope"))) {
            mcp_json_free(doc); return mcp__au_nomem(a);
        }
        mcp_json_free(doc);
        mcp__au_save_tokens(a);
        a->early = 0;
        a->issued_ms = mcp_time_ms();
        a->state = MCP__AU_DONE;
        return a->act = MCP__AD_DONE;
    }
    mcp_json_free(doc);
    return a->act;
}

/* ---- what the client calls ---------------------------------------------------------------- */

/* Tokens kept from before for this server, with the issuer, token endpoint and client they
   belong to (so a refresh needs no discovery); a client secret comes from the pre-registered
   credentials or the registration kept for that issuer, never from the tokens' record. */
static void mcp__au_load_tokens(mcp__auth *a)
{
    mcp_buf v;
    mcp_json_doc *doc;
    const mcp_json *r;
    int64_t exp = 0;
    const char *key = mcp__au_key(a, "tokens");
    memset(&v, 0, sizeof v);
    if (!key || !a->d->load || a->d->load(a->d->user, key, &v) != 1) { mcp_buf_free(&v); return; }
    if ((doc = mcp_json_parse(v.data ? v.data : "", v.len, NULL)) != NULL) {
        r = mcp_json_root(doc);
        if (mcp__au_str(r, "access_token") && mcp__au_str(r, "issuer") && mcp__au_str(r, "client_id") &&
            mcp__au_set(&a->access, mcp__au_str(r, "access_token")) && mcp__au_set(&a->issuer, mcp__au_str(r, "issuer")) &&
            mcp__au_set(&a->refresh, mcp__au_str(r, "refresh_token")) && mcp__au_set(&a->asked, mcp__au_str(r, "scope")) &&
            mcp__au_set(&a->token_ep, mcp__au_str(r, "token_endpoint")) &&
            mcp__au_set(&a->client_id, mcp__au_str(r, "client_id")) &&
            (!mcp__au_str(r, "resource") || mcp__au_set(&a->resource, mcp__au_str(r, "resource")))) {
            a->expires = mcp_json_int64(mcp_json_get(r, "expires_at"), &exp) ? exp : 0;
            a->lifetime = mcp_json_int64(mcp_json_get(r, "lifetime"), &exp) ? exp : 0;
            a->method = mcp__au_method_of(mcp__au_str(r, "method"));
            if (a->method < 0) a->method = MCP__AM_NONE;
            mcp__au_find_secret(a);     /* no secret for a client that needs one: no refresh */
            if (!a->client_secret && (a->method == MCP__AM_BASIC || a->method == MCP__AM_POST))
                mcp__au_forget(&a->refresh);
            a->state = MCP__AU_DONE;
        }
        mcp_json_free(doc);
    }
    if (v.data) memset(v.data, 0, v.len);
    mcp_buf_free(&v);
}

/* server: the MCP server's URL; version: MCP-Protocol-Version for discovery (may be NULL);
   redirect: the redirect URI (the loopback receiver's, or the program's). 0: out of memory. */
static int mcp__auth_init(mcp__auth *a, const mcp_auth *d, const char *server, const char *version, const char *redirect)
{
    memset(a, 0, sizeof *a);
    a->d = d;
    if (!mcp__au_set(&a->server, server) || !(a->resource = mcp__au_canonical(server)) ||
        !mcp__au_set(&a->version, version) || !mcp__au_set(&a->redirect, redirect))
        return 0;
    mcp__au_load_tokens(a);
    if (a->state != MCP__AU_DONE) mcp__au_load_flow(a);
    return 1;
}

static void mcp__auth_free(mcp__auth *a)
{
    int k;
    char **own[14];
    own[0] = &a->server; own[1] = &a->resource; own[2] = &a->version; own[3] = &a->prm_url;
    own[4] = &a->ch_scope; own[5] = &a->prm_scopes; own[6] = &a->as_scopes; own[7] = &a->issuer;
    own[8] = &a->authz_ep; own[9] = &a->token_ep; own[10] = &a->reg_ep; own[11] = &a->redirect;
    own[12] = &a->asked; own[13] = &a->client_id;
    for (k = 0; k < 14; k++) { MCP_FREE(*own[k], NULL); *own[k] = NULL; }
    mcp__au_forget(&a->client_secret); mcp__au_forget(&a->access); mcp__au_forget(&a->refresh);
    for (k = 0; k < 4; k++) mcp__au_forget(&a->hv[k]);
    if (a->body.data) memset(a->body.data, 0, a->body.cap);
    mcp_buf_free(&a->url); mcp_buf_free(&a->body); mcp_buf_free(&a->key);
    memset(a->verifier, 0, sizeof a->verifier);
}

/* The whole flow again, from the resource metadata. */
static int mcp__au_restart(mcp__auth *a)
{
    int r;
    a->i = 0; a->legacy = 0; a->as = 0;
    if ((r = mcp__au_prm_next(a)) >= 0) return r;
    return mcp__au_fail(a, MCP_ERR_AUTH, "No protected resource metadata to start from.");
}

/* A 403 insufficient_scope: a scope the token lacks starts the count again; only scopes it
   was granted already (the server will not be satisfied) count, and past a few it stops. */
static int mcp__au_step_up(mcp__auth *a, const char *scope)
{
    char *u = mcp__au_union(a->asked, scope), *had = mcp__au_union(a->asked, NULL);
    int more = !u || !had || strcmp(u, had);
    MCP_FREE(u, NULL); MCP_FREE(had, NULL);
    return a->step_ups = more ? 0 : a->step_ups + 1;
}

/* A 401 for a token issued less than 10 s ago counts; four in a row and the server is
   refusing whatever the authorization server issues (refreshing again would loop). */
static int mcp__au_refused_again(mcp__auth *a)
{
    if (a->state != MCP__AU_DONE || !a->issued_ms || mcp_time_ms() - a->issued_ms >= 10000) {
        a->quick401 = 0;
        return 0;
    }
    return ++a->quick401 > 3;
}

/* The MCP server answered 401 or 403 with these WWW-Authenticate values: what now. */
static int mcp__auth_challenge(mcp__auth *a, int status, const char *const *values, size_t n)
{
    mcp_http_bearer b;
    mcp_error e;
    if (mcp_http_bearer_from_values(&b, values, n, &e) != MCP_OK)
        return mcp__au_fail(a, MCP_ERR_AUTH, "The MCP server answered %d with a WWW-Authenticate header that "
                            "cannot be read: %s", status, e.message);
    if (status == 401 && mcp__au_refused_again(a)) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The MCP server refused four access tokens in a row, each just issued by "
                     "its authorization server (HTTP 401 each time): giving up.");
    } else if (status == 403 && (!b.error || strcmp(b.error, "insufficient_scope"))) {
        mcp__au_fail(a, MCP_ERR_HTTP, "The MCP server answered 403 Forbidden%s%.100s.", b.error ? ": " : "",
                     b.error ? b.error : "");
    } else if (status == 403 && mcp__au_step_up(a, b.scope) > MCP__AUTH_STEP_UPS) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The MCP server still answers insufficient_scope (%.200s) for a token "
                     "granted that scope, after %d more authorizations: giving up.", b.scope ? b.scope : "",
                     MCP__AUTH_STEP_UPS);
    } else if (!mcp__au_set(&a->ch_scope, b.scope) ||
               (b.resource_metadata && !mcp__au_set(&a->prm_url, b.resource_metadata))) {
        mcp__au_nomem(a);
    } else if (status == 403 && a->issuer && a->token_ep && a->client_id &&
               (a->authz_ep || a->d->grant == MCP_AUTH_CLIENT_CREDENTIALS)) {
        mcp__au_identified(a);          /* step-up: discovery and identity still hold (not after
                                           tokens from the store: they name no authorization_endpoint) */
    } else if (status == 401 && a->refresh && a->token_ep && a->state == MCP__AU_DONE) {
        mcp__au_token(a, 1, NULL);
    } else if (status == 401 && a->state == MCP__AU_DONE && a->access && a->restarts++ > 1) {
        mcp__au_fail(a, MCP_ERR_AUTH, "The MCP server refuses the access token its authorization server just "
                     "issued (HTTP 401 again).");
    } else {
        mcp__au_forget(&a->access);
        mcp__au_restart(a);
    }
    mcp_http_bearer_free(&b);
    return a->act;
}

/* Seconds until the token should be refreshed (0: now), or -1: nothing to refresh. The
   margin is 30 s, or a third of a shorter lifetime: a token that lives 4 s is refreshed after
   about 3, not before every request. */
static int64_t mcp__auth_refresh_in(const mcp__auth *a)
{
    int64_t left, early = MCP__AUTH_EARLY_S;
    if (a->state != MCP__AU_DONE || !a->expires || !a->refresh || !a->token_ep) return -1;
    if (a->lifetime > 0 && a->lifetime / 3 < early) early = a->lifetime / 3;
    left = a->expires - early - (int64_t)time(NULL);
    return left < 0 ? 0 : left;
}

/* The token is about to expire: a refresh now, while it still works (MCP__AD_FETCH), or
   nothing to do. If the refresh fails the token is kept until the server refuses it. */
static int mcp__auth_due(mcp__auth *a)
{
    if (mcp__auth_refresh_in(a) != 0) return a->state == MCP__AU_DONE ? (a->act = MCP__AD_DONE) : a->act;
    a->early = 1;
    return mcp__au_token(a, 1, NULL);
}

/* An early refresh that failed: the token in hand serves until a 401 says otherwise. */
static int mcp__au_quiet(mcp__auth *a)
{
    a->early = 0;
    mcp__au_forget(&a->refresh);
    a->state = MCP__AU_DONE;
    return a->act = MCP__AD_DONE;
}

/* The answer to the FETCH it asked for: status, Content-Type, body. */
static int mcp__auth_answer(mcp__auth *a, int status, const char *ctype, const char *body, size_t len)
{
    int r;
    if (a->act != MCP__AD_FETCH) return a->act;
    a->act = MCP__AD_NOTHING;
    switch (a->state) {
    case MCP__AU_PRM:
        if (status == 200) return mcp__au_prm_answer(a, ctype, body, len);
        if (status >= 500 || (a->prm_url && status != 404))
            return mcp__au_fail(a, MCP_ERR_HTTP, "%s at %.200s answered %d.", a->step, a->url.data, status);
        a->i++;
        if ((r = mcp__au_prm_next(a)) >= 0) return r;
        if (a->prm_url)
            return mcp__au_fail(a, MCP_ERR_HTTP, "%s at %.200s answered %d.", a->step, a->url.data, status);
        a->legacy = 1; a->i = 0;        /* 2025-03-26: the authorization server is the MCP server's origin */
        if (!mcp__au_origin(a->server, &a->url) || !mcp__au_set(&a->issuer, a->url.data)) return mcp__au_nomem(a);
        return mcp__au_asm_next(a);
    case MCP__AU_ASM:
        if (status == 200) return mcp__au_asm_answer(a, ctype, body, len);
        if (status >= 500) return mcp__au_fail(a, MCP_ERR_HTTP, "%s at %.200s answered %d.", a->step, a->url.data, status);
        a->i++;
        if ((r = mcp__au_asm_next(a)) >= 0) return r;
        if (a->legacy) return mcp__au_defaults(a);
        return mcp__au_fail(a, MCP_ERR_AUTH, "The authorization server %.200s publishes no metadata (RFC 8414 or "
                            "OpenID Connect discovery) at any of the places the MCP specification names.", a->issuer);
    case MCP__AU_REGISTER:
        if (status == 200 || status == 201) return mcp__au_register_answer(a, ctype, body, len);
        return mcp__au_fail(a, MCP_ERR_AUTH, "%s answered %d%s%.*s", a->step, status, len ? ": " : ".",
                            (int)(len < 300 ? len : 300), len ? body : "");   /* body: len bytes, no NUL */
    case MCP__AU_TOKEN: case MCP__AU_REFRESH:
        return mcp__au_token_answer(a, status, ctype, body, len);
    default:
        return a->act;
    }
}

/* The FETCH could not be made (no connection, a timeout): e says why. */
static int mcp__auth_unreachable(mcp__auth *a, const mcp_error *e)
{
    if (a->early) return mcp__au_quiet(a);
    return mcp__au_fail(a, e->status == MCP_ERR_TIMEOUT ? MCP_ERR_TIMEOUT : e->status,
                        "%s could not be reached: %s", a->step ? a->step : "The authorization server", e->message);
}

/* What the client is to do now. */
static void mcp__auth_next(const mcp__auth *a, mcp__auth_do *out)
{
    memset(out, 0, sizeof *out);
    out->what = a->act;
    if (a->act == MCP__AD_FETCH) {
        out->method = a->state == MCP__AU_PRM || a->state == MCP__AU_ASM ? "GET" : "POST";
        out->url = a->url.data; out->headers = a->hdrs; out->step = a->step;
        out->body = a->body.len ? a->body.data : NULL; out->body_len = a->body.len;
    } else if (a->act == MCP__AD_BROWSER) out->url = a->url.data;
}
#endif /* MCP_NO_AUTH */

/* ============================================================================================
   >>client
   ============================================================================================
   Reading and dispatching are separate phases: the transport turns bytes into events on a
   FIFO queue; dispatch pops them one by one and runs the callbacks. A callback may therefore
   poll again (even make a blocking call): the nested poll continues the same queue in order. */

static const char *const mcp__versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };
static const char *const mcp__modern[] = { "2026-07-28", NULL };   /* no initialize: _meta */

/* The client's life (c->state). Each arrow is the one place that makes it:

     NEW --mcp_client_connect_begin--> CONNECTING --probe or initialize done--> READY
      |                                     |                                    |
      |                     mcp__transport_down: a lost connection, a failed      |
      |                     connect, a limit, the program's close                 |
      |                                     v                                    |
      |                                  CLOSING <-------------------------------+
      |                                     |  tp->close, a step at a time
      |                                     v
      |                                   ENDED   the transport is over; the CLOSED
      |                                     |     event waits behind the messages
      |                                     v     read before it
      +--close before connect---------->  CLOSED  calls in flight failed, on_close ran

   An open that fails goes from NEW to CLOSED too. While CONNECTING, the connect's call
   (c->init_id) goes through its roles (MCP__ROLE_*): PROBE (server/discover), then INIT
   (initialize) when the server is of the 2025 era, on HTTP perhaps INIT again over HTTP+SSE
   (the fallback); REINIT is a new session's initialize, later, after a 404. */
enum { MCP__NEW = 0, MCP__CONNECTING, MCP__READY, MCP__CLOSING, MCP__ENDED, MCP__CLOSED };
enum { MCP__ROLE_CALL = 0, MCP__ROLE_INIT, MCP__ROLE_REINIT, MCP__ROLE_PROBE };
#define MCP__GOING(c) ((c)->state >= MCP__CLOSING)     /* nothing more can be sent */
enum { MCP__EV_MSG = 1, MCP__EV_STDERR, MCP__EV_LOG, MCP__EV_TRANSPORT };

typedef struct mcp__ev {             /* a queued event; text (stderr line, log) follows it */
    struct mcp__ev *next;
    int kind;
    mcp_json_doc *doc;
    mcp_tev *tev;                    /* MCP__EV_TRANSPORT: the report, its texts after it */
    size_t len;
} mcp__ev;

typedef struct mcp__task mcp__task;   /* >>client.tasks */
enum { MCP__TASK_SLEEP = 0, MCP__TASK_GET, MCP__TASK_UPDATE, MCP__TASK_RESULT };

struct mcp__task {                       /* a call the server runs as a task */
    char *id;
    int phase;                           /* MCP__TASK_* */
    int64_t token;                       /* the progress token the request went with (0: none) */
    int interval;                        /* ms between polls */
    int64_t ttl_due;                     /* when the server may have dropped it; -1: never */
    int ttl_ms;
    unsigned polls;
    char status[16];
    uint32_t said;                       /* a hash of the status message last reported */
    mcp_buf keys;                        /* input requests answered: "key\0key\0..." */
};

static void mcp__task_free(mcp_call *call);
static int mcp__task_prelist(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r);
static void mcp__task_answer(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r);
static void mcp__task_begin(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r);
static int mcp__tasks_tools(const mcp_client *c);
static void mcp__task_tools_note(mcp_client *c, const mcp_json *result);
static int mcp__task_wake(mcp_client *c, mcp_call *call);
static void mcp__task_timeout(mcp_client *c, mcp_call *call, int hard);
static void mcp__task_cancel_send(mcp_client *c, const char *task_id);
static void mcp__task_notified(mcp_client *c, const mcp_json *p);
static mcp_call *mcp__progress_call(mcp_client *c, int64_t tok);
static void mcp__task_ask(mcp_client *c, mcp_call *call, const char *method, int phase, const char *extra);
static int mcp__task_key_seen(const mcp__task *k, const char *key, size_t n);
static void mcp__task_key_add(mcp__task *k, const char *key, size_t n);
static char *mcp__task_params(mcp_client *c, const char *params, size_t plen, int opt);
static mcp_call *mcp__task_call(mcp_client *c, const char *params, int how, const mcp_call_opts *o, mcp_error *err);


/* 2026-07-28: answers being gathered for an input_required result. The result's document
   holds the server's requests; the answers become the retry's inputResponses. */
typedef struct mcp__mrtr {
    mcp_call *call;                      /* NULL once the call ended another way */
    mcp_json_doc *doc;                   /* the InputRequiredResult */
    mcp_jw answers;                      /* "key": result, ... (members, as they come) */
    int pending, refs;                   /* unanswered requests; requests alive */
} mcp__mrtr;

struct mcp_request {
    mcp_client *c;                       /* NULL once the client is gone */
    mcp_json_doc *doc;                   /* the request message (NULL: it lives in mrtr->doc) */
    const mcp_json *id, *params;         /* id NULL: an input request inside a result */
    const char *method;
    int cancelled;
    mcp__mrtr *mrtr;                     /* the input_required it belongs to */
    const char *key; size_t keylen;
    mcp_request *next, *prev;
};

struct mcp_call {
    mcp__pending p;                      /* first: its id and deadlines, for >>rpc */
    mcp_client *c;                       /* NULL once the client is gone */
    mcp_status status;                   /* MCP_AGAIN while in flight */
    char *msg;                           /* the failure's sentence: allocated only then */
    long rpc_code; int http_status, sys_errno;   /* its details (set before mcp__call_fail) */
    mcp_json_doc *doc;                   /* the result, its root rewritten to "result" */
    int timeout_ms, hard_ms;
    void (*on_progress)(void *user, mcp_call *call, double progress, double total, const char *message);
    void (*on_task)(void *user, mcp_call *call, const char *task_id, const char *status, const char *message);
    void *user;
    mcp_call *next, *prev;               /* every call attached to the client */
    char *method, *params;               /* kept when the request may go again (2026-07-28,
                                            connect): a new id each time */
    size_t plen;
    char *own;                           /* method and params when replaced (else after the call) */
    mcp_json_doc *errdoc;                /* a JSON-RPC error: its object, for its data */
    struct mcp__mrtr *mrtr;              /* answers being gathered for input_required */
    struct mcp__refresh *rf;             /* tools/list pages read before the tools/call again */
    struct mcp__task *task;              /* the server runs it as a task (>>client.tasks) */
    char *task_pre;                      /* its tools/call params, while tools/list is read first */
    struct mcp__ckey *ck;                /* a cacheable request: its key, to keep its result
                                            under (>>client.cache) */
    /* small counts and flags, a byte each (a thousand calls in flight are common) */
    unsigned char role;                  /* MCP__ROLE_*, in >>client.connect */
    unsigned char reset_on_progress;
    unsigned char token;                 /* sends a progressToken (its current id) */
    unsigned char rounds, reissued;      /* input_required rounds (at most 101); re-sent after a
                                            broken stream */
    unsigned char refreshed;             /* the tools/list refresh happened (once per call) */
    unsigned char parked;                /* its session was lost: waits for the new one */
    unsigned char au_parked;             /* met 401/403: waits for the authorization flow */
    unsigned char au_failed;             /* that flow failed: its sentence is the call's */
    unsigned char answered;              /* its id got an answer: nothing to abandon */
    unsigned char resumes;               /* its event stream resumed after breaking (at most 5) */
    unsigned char task_asked, task_opt;  /* 2025-11-25: sent with "task"; opts.task */
};

/* The engine files calls by their first member. */
#define MCP__CALL(pend) ((mcp_call *)(void *)(pend))

struct mcp_client {
    mcp_client_desc d;                   /* a deep copy: strings live in `strings` */
    char *strings;
    int state;                           /* MCP__NEW ... MCP__CLOSED: the diagram above */
    mcp__rpc rpc;
    mcp_call *calls;                     /* attached calls, in flight or not yet freed */
    mcp_request *reqs;                   /* server requests not yet answered */
    mcp__ev *qhead, *qtail;
    mcp_json_doc *init;                  /* the initialize result */
    const char *version;
    mcp_jw w;                            /* builds outgoing messages */
    mcp_client_stats stats;
    mcp_error why;                       /* why the transport closed */
    int64_t late[32]; unsigned nlate;    /* calls given up on: their answers are expected noise */
    const mcp_transport *tp;            /* the transport's operations (>>transport) */
    void *t;                            /* its state, from tp->open; NULL before connect */
    int user_closed, exited;            /* exited: the transport ended because the server did */
    int close_now;                      /* mcp_client_close_now: no polite waits */
    int close_async;                    /* mcp_client_close_begin: the steps run in the polls */
    int closed_seen;                    /* the transport reported MCP_TEV_CLOSED */
    mcp_status down_st;                 /* why the transport ends, and the client's sentence */
    char down_why[300];
    int reiniting, parked_notes;        /* a new session is being started after a 404 */
    int tried_sse;                      /* fell back from Streamable HTTP to HTTP+SSE ... */
    char fallback[40];                  /* ... because "POST answered 404" */
    mcp_json_doc *xhdr;                 /* 2026-07-28: {"tool": [["Name", "prop", ...], ...]} */
    mcp_buf task_tools;                  /* 2025-11-25: each tool's taskSupport (>>client.tasks) */
    int task_tools_known;
    int64_t task_cancels[8];             /* ids of tasks/cancel sent: their answers, dropped quietly */
    unsigned ntask_cancels;
    int64_t connect_at;                 /* when the connect began: its steps share one timeout */
    volatile sig_atomic_t interrupted;  /* mcp_client_interrupt, maybe from a signal handler */
    char how[64], quote[300];            /* how the server ended; its most telling stderr line */
    int64_t init_id;                     /* the connect's request (probe, then initialize) */
    char *init_params;                   /* its params, for a new session after a 404 */
    int modern;                          /* speaking 2026-07-28: no session, _meta on requests */
    char *meta;                          /* the _meta members every modern request carries */
    char *log_level;                     /* modern: io.modelcontextprotocol/logLevel */
    const char *meta_version;            /* the version in meta */
#if !defined(MCP_NO_AUTH) && !defined(MCP_NO_HTTP)
    struct mcp__authrun *au;             /* desc.auth: the authorization flow (>>client.auth) */
#endif
    struct mcp__cache *cache;            /* results kept while fresh (>>client.cache); NULL
                                            until the first cacheable request */
};

/* ---- small helpers -------------------------------------------------------------------------- */

typedef struct mcp__cp { char *base; size_t used; } mcp__cp;   /* measure (base NULL), then copy */

static const char *mcp__cp_str(mcp__cp *cp, const char *s)
{
    size_t n;
    char *d = NULL;
    if (!s) return NULL;
    n = strlen(s) + 1;
    if (cp->base) { d = cp->base + cp->used; memcpy(d, s, n); }
    cp->used += n;
    return d;
}

static const char *const *mcp__cp_arr(mcp__cp *cp, const char *const *a)
{
    size_t n = 0, i;
    const char **d = NULL;
    if (!a) return NULL;
    while (a[n]) n++;
    cp->used = (cp->used + sizeof(char *) - 1) & ~(sizeof(char *) - 1);
    if (cp->base) d = (const char **)(void *)(cp->base + cp->used);
    cp->used += (n + 1) * sizeof(char *);
    for (i = 0; i < n; i++) { const char *s = mcp__cp_str(cp, a[i]); if (d) d[i] = s; }
    if (d) d[n] = NULL;
    return d;
}

static void mcp__cp_desc(mcp__cp *cp, const mcp_client_desc *in, mcp_client_desc *out)
{
    /* arrays first: they need pointer alignment at the start of the block */
    out->args = mcp__cp_arr(cp, in->args);
    out->env = mcp__cp_arr(cp, in->env);
    out->headers = mcp__cp_arr(cp, in->headers);
    out->command = mcp__cp_str(cp, in->command);
    out->cwd = mcp__cp_str(cp, in->cwd);
    out->url = mcp__cp_str(cp, in->url);
    out->protocol_version = mcp__cp_str(cp, in->protocol_version);
    out->client_name = mcp__cp_str(cp, in->client_name);
    out->client_version = mcp__cp_str(cp, in->client_version);
    out->capabilities_json = mcp__cp_str(cp, in->capabilities_json);
}

/* Queues an event; its text (or, text NULL, room for len bytes) follows it. */
static mcp__ev *mcp__enqueue(mcp_client *c, int kind, mcp_json_doc *doc, const char *text, size_t len)
{
    mcp__ev *e;
    if (doc) doc = mcp__json_trim(doc);
    e = (mcp__ev *)MCP_MALLOC(sizeof *e + len + 1, NULL);
    if (!e) { mcp_json_free(doc); return NULL; }     /* out of memory: the event is lost */
    e->next = NULL; e->kind = kind; e->doc = doc; e->tev = NULL; e->len = len;
    if (text && len) memcpy(e + 1, text, len);
    ((char *)(e + 1))[len] = 0;
    if (c->qtail) c->qtail->next = e; else c->qhead = e;
    c->qtail = e;
    return e;
}

static void mcp__log(mcp_client *c, const char *fmt, ...) MCP__PRINTF(2, 3);
static void mcp__log(mcp_client *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int n;
    if (!c->d.on_log) return;
    va_start(ap, fmt);
    n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    mcp__enqueue(c, MCP__EV_LOG, NULL, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

static mcp_status mcp__fail_closed(mcp_error *err)
{
    return mcp__fail(err, MCP_ERR_CLOSED, "Transport closed");
}

/* ---- >>client.cache  results kept while fresh (ttlMs, cacheScope) ----------------------------
   The results of the cacheable methods (server/discover, tools/list, prompts/list,
   resources/list, resources/templates/list, resources/read) are kept per client, as compact
   JSON text, under the request's key: the method and its params as sent, so each page of a
   list is kept under its cursor and a read under its uri. A request whose key holds a fresh
   result (now < received + ttlMs) is answered from it without the transport: its call is
   complete when mcp_client_send returns, with a document of its own parsed from the text.
   Not kept: a result without a positive ttlMs (older servers send none), one that came
   through an input_required retry (its answers are not in the key), one larger than the
   budget, one whose request was sent before an invalidation (the generation). Oldest results
   make room; ttlMs counts for a day at most. Dropped: by the notification that says what
   changed, by a new session, and the private ones (cacheScope other than "public") by a new
   access token. */

#define MCP__CACHE_MAX ((size_t)8 << 20)     /* desc.cache_max 0 */
#define MCP__CACHE_DAY_MS 86400000           /* the longest ttlMs honoured */

typedef struct mcp__centry {                 /* a kept result; its key and text follow it */
    struct mcp__centry *next, *prev;         /* oldest first */
    uint64_t hash;                           /* of the key */
    int64_t expires;                         /* mcp_time_ms() from which it is stale */
    size_t klen, tlen;                       /* key (method, 0, params) and text, each 0-ended */
    int priv;                                /* cacheScope not "public": this token's only */
} mcp__centry;

typedef struct mcp__cache {
    mcp__centry *head, *tail;
    unsigned gen;                            /* moves on at every invalidation */
} mcp__cache;

typedef struct mcp__ckey {                   /* a cacheable request's key; its text follows */
    uint64_t hash;
    size_t klen;
    unsigned gen;                            /* the cache's generation when it was sent */
} mcp__ckey;

static int mcp__cacheable(const char *m)
{
    switch (m[0]) {                          /* on every request: the first byte picks the names */
    case 't': return !strcmp(m, "tools/list");
    case 'p': return !strcmp(m, "prompts/list");
    case 'r': return !strcmp(m, "resources/list") || !strcmp(m, "resources/templates/list") ||
                     !strcmp(m, "resources/read");
    case 's': return !strcmp(m, "server/discover");
    default: return 0;
    }
}

static uint64_t mcp__cache_hash(const char *p, size_t n)    /* FNV-1a */
{
    uint64_t h = 0xcbf29ce484222325u;
    while (n--) { h ^= (unsigned char)*p++; h *= 0x100000001b3u; }
    return h;
}

/* The params of a request as they go into its key: compact JSON, "" for none or {}. *text is
   allocated (or NULL for ""); 0: nothing may be kept for this request (an input_required
   retry's answers, or no memory). */
static int mcp__cache_params(const char *params, size_t plen, char **text, size_t *tl)
{
    mcp_json_doc *pd;
    const mcp_json *p;
    int ok = 1;
    *text = NULL; *tl = 0;
    if (!params || !plen) return 1;
    if (!(pd = mcp_json_parse(params, plen, NULL))) return 0;
    p = mcp_json_root(pd);
    if (mcp_json_get(p, "inputResponses") || mcp_json_get(p, "requestState")) ok = 0;
    else if (mcp_json_len(p) && !(*text = mcp_json_dump(p, 0, tl))) ok = 0;
    mcp_json_free(pd);
    return ok;
}

/* The key of a request, or NULL when none of its results may be kept (caching off, not a
   cacheable method, see mcp__cache_params). The cache itself begins with the first key: a
   result can only come back to a request that has one. */
static mcp__ckey *mcp__cache_key(mcp_client *c, const char *method, const char *params, size_t plen)
{
    mcp__ckey *k = NULL;
    char *text, *key;
    size_t tl, ml = strlen(method);
    if (!c->d.cache_max || !mcp__cacheable(method) || !mcp__cache_params(params, plen, &text, &tl)) return NULL;
    if (!c->cache && (c->cache = (mcp__cache *)MCP_MALLOC(sizeof *c->cache, NULL)) != NULL)
        memset(c->cache, 0, sizeof *c->cache);
    if (c->cache && (k = (mcp__ckey *)MCP_MALLOC(sizeof *k + ml + tl + 2, NULL)) != NULL) {
        key = (char *)(k + 1);
        memcpy(key, method, ml + 1);
        if (tl) memcpy(key + ml + 1, text, tl);
        key[ml + 1 + tl] = 0;
        k->klen = ml + 1 + tl;
        k->hash = mcp__cache_hash(key, k->klen);
        k->gen = c->cache->gen;
    }
    mcp_free(text);
    return k;
}

static mcp__centry *mcp__cache_find(const mcp__cache *ch, const mcp__ckey *k)
{
    mcp__centry *e;
    for (e = ch->head; e; e = e->next)
        if (e->hash == k->hash && e->klen == k->klen && !memcmp(e + 1, k + 1, k->klen)) return e;
    return NULL;
}

static void mcp__cache_unlink(mcp_client *c, mcp__centry *e)
{
    mcp__cache *ch = c->cache;
    if (e->prev) e->prev->next = e->next; else ch->head = e->next;
    if (e->next) e->next->prev = e->prev; else ch->tail = e->prev;
    c->stats.cache_bytes -= sizeof *e + e->klen + e->tlen + 2;
    MCP_FREE(e, NULL);
}

/* A call complete at once with a copy of a kept result, as if the server had answered it:
   never sent and not in the engine's table, its document the caller's to take and free. */
static mcp_call *mcp__cache_call(mcp_client *c, const char *method, const mcp__centry *e, const mcp_call_opts *o)
{
    size_t ml = strlen(method);
    mcp_json_doc *doc = mcp_json_parse((const char *)(e + 1) + e->klen + 1, e->tlen, NULL);
    mcp_call *call = doc ? (mcp_call *)MCP_MALLOC(sizeof *call + ml + 1, NULL) : NULL;
    if (!call) { mcp_json_free(doc); return NULL; }      /* no memory: the request goes */
    memset(call, 0, sizeof *call);
    call->c = c; call->status = MCP_OK; call->doc = mcp__json_trim(doc);
    call->p.id = ++c->rpc.next_id;
    call->p.due = call->p.deadline = call->p.hard = -1;
    call->p.heap_i = MCP__NOWHERE;
    call->method = (char *)(call + 1);
    memcpy(call->method, method, ml + 1);
    if (o) { call->on_progress = o->on_progress; call->user = o->user; }
    call->next = c->calls; call->prev = NULL;
    if (c->calls) c->calls->prev = call;
    c->calls = call;
    return call;
}

/* Before a request is sent: a call answered from a fresh kept result, or NULL (a miss) with
   *key set to the request's key (NULL: not cacheable), which the started call takes
   (mcp__cache_attach). A stale result is dropped here; opts.no_cache asks anyway. */
static mcp_call *mcp__cache_begin(mcp_client *c, const char *method, const char *params, size_t plen,
                                  const mcp_call_opts *o, mcp__ckey **key)
{
    mcp__centry *e;
    mcp_call *call;
    if (!(*key = mcp__cache_key(c, method, params, plen))) return NULL;
    if (!(o && o->no_cache) && (e = mcp__cache_find(c->cache, *key)) != NULL) {
        if (mcp_time_ms() >= e->expires) mcp__cache_unlink(c, e);
        else if ((call = mcp__cache_call(c, method, e, o)) != NULL) {
            MCP_FREE(*key, NULL);
            *key = NULL;
            c->stats.cache_hits++;
            return call;
        }
    }
    c->stats.cache_misses++;
    return NULL;
}

static void mcp__cache_attach(mcp_call *call, mcp__ckey *key)
{
    if (call) call->ck = key; else MCP_FREE(key, NULL);
}

/* Room for cost more bytes: stale results go first, then the oldest fresh ones. */
static void mcp__cache_room(mcp_client *c, size_t cost, int64_t now)
{
    mcp__centry *e, *next;
    for (e = c->cache->head; e && c->stats.cache_bytes + cost > c->d.cache_max; e = next) {
        next = e->next;
        if (now >= e->expires) mcp__cache_unlink(c, e);
    }
    while (c->cache->head && c->stats.cache_bytes + cost > c->d.cache_max) {
        c->stats.cache_evictions++;
        mcp__cache_unlink(c, c->cache->head);
    }
}

/* A cacheable request's result came (complete: input_required never gets here): it replaces
   what was kept under its key, and is kept itself if it may be. The clock starts now, when
   the message is handled, a moment after it was read. */
static void mcp__cache_keep(mcp_client *c, mcp_call *call)
{
    mcp__ckey *k = call->ck;
    mcp__centry *e;
    const mcp_json *r = mcp_json_root(call->doc);
    const char *scope = mcp_json_str(mcp_json_get(r, "cacheScope"));
    char *text = NULL;
    size_t tl = 0, cost;
    int64_t ttl = 0, now = mcp_time_ms();
    call->ck = NULL;                                     /* (a key means the cache exists) */
    if ((e = mcp__cache_find(c->cache, k)) != NULL) mcp__cache_unlink(c, e);
    if (k->gen == c->cache->gen && !call->rounds && mcp_json_int64(mcp_json_get(r, "ttlMs"), &ttl) && ttl > 0)
        text = mcp_json_dump(r, 0, &tl);
    cost = sizeof *e + k->klen + tl + 2;
    if (text && cost <= c->d.cache_max) {
        mcp__cache_room(c, cost, now);
        if ((e = (mcp__centry *)MCP_MALLOC(cost, NULL)) != NULL) {
            memcpy(e + 1, k + 1, k->klen + 1);
            memcpy((char *)(e + 1) + k->klen + 1, text, tl + 1);
            e->hash = k->hash; e->klen = k->klen; e->tlen = tl;
            e->expires = now + (ttl < MCP__CACHE_DAY_MS ? ttl : MCP__CACHE_DAY_MS);
            e->priv = !scope || strcmp(scope, "public");
            e->next = NULL; e->prev = c->cache->tail;
            if (e->prev) e->prev->next = e; else c->cache->head = e;
            c->cache->tail = e;
            c->stats.cache_bytes += cost;
            c->stats.cache_stores++;
        }
    }
    mcp_free(text);
    MCP_FREE(k, NULL);
}

/* Is a kept resources/read for uri, or for a resource uri is part of? (An update may name a
   sub-resource of the one read: 2025-11-25's resources/updated.) */
static int mcp__cache_reads(const mcp__centry *e, const char *uri)
{
    const char *key = (const char *)(e + 1);
    size_t ml = strlen(key) + 1;
    mcp_json_doc *pd = e->klen > ml ? mcp_json_parse(key + ml, e->klen - ml, NULL) : NULL;
    const char *u = mcp_json_str(mcp_json_get(mcp_json_root(pd), "uri"));
    int hit = !u || !strncmp(uri, u, strlen(u));         /* no uri known: dropped to be safe */
    mcp_json_free(pd);
    return hit;
}

/* Drops the results of method (NULL: of every method), of resources/read those for uri (NULL:
   all), only the private ones with priv. Requests in flight now will not keep theirs. */
static void mcp__cache_drop(mcp_client *c, const char *method, const char *uri, int priv)
{
    mcp__centry *e, *next;
    if (!c->cache) return;
    c->cache->gen++;
    for (e = c->cache->head; e; e = next) {
        next = e->next;
        if ((method && strcmp((const char *)(e + 1), method)) || (priv && !e->priv) || (uri && !mcp__cache_reads(e, uri)))
            continue;
        mcp__cache_unlink(c, e);
    }
}

/* A notification (or 2026-07-28 subscription event) that says what changed. */
static void mcp__cache_notified(mcp_client *c, const char *method, const mcp_json *params)
{
    if (!c->cache || strncmp(method, "notifications/", 14)) return;
    method += 14;
    if (!strcmp(method, "tools/list_changed")) mcp__cache_drop(c, "tools/list", NULL, 0);
    else if (!strcmp(method, "prompts/list_changed")) mcp__cache_drop(c, "prompts/list", NULL, 0);
    else if (!strcmp(method, "resources/list_changed")) {
        mcp__cache_drop(c, "resources/list", NULL, 0);
        mcp__cache_drop(c, "resources/templates/list", NULL, 0);
    } else if (!strcmp(method, "resources/updated"))
        mcp__cache_drop(c, "resources/read", mcp_json_str(mcp_json_get(params, "uri")), 0);
}

static void mcp__cache_free(mcp_client *c)
{
    while (c->cache && c->cache->head) mcp__cache_unlink(c, c->cache->head);
    MCP_FREE(c->cache, NULL);
    c->cache = NULL;
}

/* ---- >>client.send  building and sending messages -------------------------------------------- */

static void mcp__transport_down(mcp_client *c, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);
static void mcp__mrtr_release(mcp__mrtr *m);
static void mcp__request_free(mcp_request *req);
static void mcp__list_text(const mcp_json *list, char *out, size_t n);
static mcp_status mcp__build_meta(mcp_client *c, const char *version);

/* Sends the message built in c->w (its request id, or -1) through the transport. */
static mcp_status mcp__send_built(mcp_client *c, int64_t id, unsigned how, const char *hdrs, mcp_error *err)
{
    mcp_status st;
    if (MCP__GOING(c) || !c->t) return mcp__fail_closed(err);
    if (c->w.status != MCP_OK) return mcp_jw_status(&c->w, err);
    st = c->tp->send(c->t, c->w.buf, c->w.len, id, hdrs, how, err);
    if (st == MCP_OK) c->stats.sent++;
    return st;
}

/* How a request goes: read-only ones may be sent twice if a connection dropped them (HTTP's
   idempotent methods, initialize: a session nobody uses); subscriptions/listen's answer is a
   stream that lives as long as the subscription. */
static unsigned mcp__send_how(const char *m)
{
    switch (m[0]) {                        /* on every request: the first byte picks the names */
    case 't': return !strcmp(m, "tools/list") || !strcmp(m, "tasks/get") ? MCP_SEND_REPEATABLE : 0;
    case 'p': return !strcmp(m, "prompts/list") || !strcmp(m, "prompts/get") || !strcmp(m, "ping") ?
                     MCP_SEND_REPEATABLE : 0;
    case 'r': return !strcmp(m, "resources/list") || !strcmp(m, "resources/templates/list") ||
                     !strcmp(m, "resources/read") ? MCP_SEND_REPEATABLE : 0;
    case 'c': return !strcmp(m, "completion/complete") ? MCP_SEND_REPEATABLE : 0;
    case 's': return !strcmp(m, "server/discover") ? MCP_SEND_REPEATABLE :
                     !strcmp(m, "subscriptions/listen") ? MCP_SEND_STREAM : 0;
    case 'i': return !strcmp(m, "initialize") ? MCP_SEND_REPEATABLE : 0;
    default: return 0;
    }
}

/* CR and LF, which valid JSON holds only as whitespace, become spaces: the text of a call's
   params (mcp__start) stays on one line, as stdio's framing needs. */
static void mcp__one_line(char *o, size_t len)
{
    char *e = o + len, *q;
    for (q = o; (q = (char *)memchr(q, '\n', (size_t)(e - q))) != NULL; ) *q++ = ' ';
    for (q = o; (q = (char *)memchr(q, '\r', (size_t)(e - q))) != NULL; ) *q++ = ' ';
}

/* JSON text the library has already checked, inserted as it is. */
static mcp_status mcp__jw_raw_trusted(mcp_jw *w, const char *json, size_t len)
{
    if (!mcp__jw_pre_value(w) || !mcp__jw_room(w, len)) return w->status;
    memcpy(w->buf + w->len, json, len);
    w->len += len;
    mcp__jw_post_value(w);
    return w->status;
}

/* Like mcp_jw_raw, but the text goes in as written once it is checked (its CR and LF made
   spaces, for stdio's framing): for the params the library builds, where the layout does not
   matter and the second pass would. */
static mcp_status mcp__jw_raw_checked(mcp_jw *w, const char *json, size_t len)
{
    mcp_json_doc *doc;
    mcp_error pe;
    int multiline;
    if (w->status != MCP_OK) return w->status;
    doc = mcp__json_check(json, len, &pe);
    if (!doc) return pe.status == MCP_ERR_NOMEM ? mcp__jw_fail(w, MCP_ERR_NOMEM, "out of memory")
                                                : mcp__jw_fail(w, MCP_ERR_INVALID, "raw text that is not valid JSON");
    multiline = doc->multiline;
    mcp_json_free(doc);
    if (mcp__jw_raw_trusted(w, json, len) == MCP_OK && multiline) mcp__one_line(w->buf + w->len - len, len);
    return w->status;
}

/* The fixed parts of the library's own (compact) messages, written as literals: a key
   `"id":` (its value follows through the usual calls), or a whole member. */
static void mcp__jw_lit(mcp_jw *w, const char *lit, size_t n, int whole_member)
{
    unsigned char *top;
    if (w->status != MCP_OK) return;
    top = &w->stack[w->depth - 1];
    if (*top & MCP__JW_ITEMS) mcp__jw_put(w, ",", 1);
    *top |= whole_member ? MCP__JW_ITEMS : MCP__JW_ITEMS | MCP__JW_KEY;
    mcp__jw_put(w, lit, n);
}
#define MCP__KEY(w, lit) mcp__jw_lit((w), lit, sizeof lit - 1, 0)

/* {"jsonrpc":"2.0", then the caller adds the rest */
static void mcp__msg_begin(mcp_client *c)
{
    mcp_jw_reset(&c->w);
    c->w.pretty = 0;
    mcp_jw_obj_begin(&c->w);
    mcp__jw_lit(&c->w, "\"jsonrpc\":\"2.0\"", 15, 1);
}

/* params, with _meta.progressToken merged in when token > 0 */
static int mcp__is_key(const char *k, size_t kl, const char *name)
{
    return strlen(name) == kl && !memcmp(k, name, kl);
}

/* The _meta object: the caller's members, then the progress token and (2026-07-28) the
   protocol members, `meta`, as JSON text (ours win over the caller's of the same name). */
static void mcp__write_meta(mcp_jw *w, const mcp_json *mine, int64_t token, const char *meta)
{
    size_t j, ml;
    const char *mk;
    mcp_jw_obj_begin(w);
    if (token) { mcp_jw_key(w, "progressToken"); mcp_jw_int(w, token); }
    for (j = 0; j < mcp_json_len(mine); j++) {
        mk = mcp_json_key_at(mine, j, &ml);
        if (token && mcp__is_key(mk, ml, "progressToken")) continue;
        if (meta && ml > 24 && !memcmp(mk, "io.modelcontextprotocol/", 24)) continue;
        mcp_jw_keyn(w, mk, ml); mcp_jw_value(w, mcp_json_at(mine, j));
    }
    if (meta) mcp__jw_lit(w, meta, strlen(meta), 1);
    mcp_jw_obj_end(w);
}

/* params with _meta filled in; `extra` (JSON members, e.g. inputResponses) replaces members of
   the same names. Without a token, meta or extra, the checked text goes in as it is. */
static void mcp__write_params(mcp_jw *w, const char *params, size_t plen, int64_t token,
                              const char *meta, const char *extra, const char *const *extra_keys)
{
    mcp_json_doc *pd;
    const mcp_json *p, *v, *mine = NULL;
    size_t i, kl;
    const char *k, *const *ek;
    if (!token && !meta && !extra) { mcp__jw_raw_trusted(w, params, plen); return; }
    pd = params ? mcp_json_parse(params, plen, NULL) : NULL;
    p = mcp_json_root(pd);
    mcp_jw_obj_begin(w);
    for (i = 0; (v = mcp_json_at(p, i)) != NULL; i++) {
        k = mcp_json_key_at(p, i, &kl);
        if (mcp__is_key(k, kl, "_meta") && mcp_json_typeof(v) == MCP_JSON_OBJECT) { mine = v; continue; }
        for (ek = extra_keys; ek && *ek && !mcp__is_key(k, kl, *ek); ek++) {}
        if (ek && *ek) continue;
        mcp_jw_keyn(w, k, kl); mcp_jw_value(w, v);
    }
    if (extra && *extra) mcp__jw_lit(w, extra, strlen(extra), 1);
    mcp_jw_key(w, "_meta");
    mcp__write_meta(w, mine, token, meta);
    mcp_jw_obj_end(w);
    mcp_json_free(pd);
}

static mcp_status mcp__notify_dom(mcp_client *c, const char *method, const mcp_json *params, mcp_error *err)
{
    mcp__msg_begin(c);
    mcp_jw_key(&c->w, "method"); mcp_jw_str(&c->w, method);
    if (params) { mcp_jw_key(&c->w, "params"); mcp_jw_value(&c->w, params); }
    mcp_jw_obj_end(&c->w);
    return mcp__send_built(c, -1, MCP_SEND_NOW, NULL, err);
}

static void mcp__send_cancelled(mcp_client *c, int64_t id, const char *reason)
{
    if (MCP__GOING(c)) return;
    if (c->modern && (c->tp->flags & MCP_TRANSPORT_HTTP)) return;   /* 2026-07-28 HTTP: the closed stream says it */
    mcp__msg_begin(c);
    mcp_jw_key(&c->w, "method"); mcp_jw_str(&c->w, "notifications/cancelled");
    mcp_jw_key(&c->w, "params"); mcp_jw_obj_begin(&c->w);
    mcp_jw_key(&c->w, "requestId"); mcp_jw_int(&c->w, id);
    if (reason) { mcp_jw_key(&c->w, "reason"); mcp_jw_str(&c->w, reason); }
    mcp_jw_obj_end(&c->w);
    mcp_jw_obj_end(&c->w);
    mcp__send_built(c, -1, MCP_SEND_NOW, NULL, NULL);
}

/* ---- >>client.calls  a request from start to outcome ----------------------------------------- */

static void mcp__init_finish(mcp_client *c, mcp_call *call);

static void mcp__remember_late(mcp_client *c, int64_t id)
{
    c->late[c->nlate++ % (sizeof c->late / sizeof c->late[0])] = id;
}

static int mcp__is_late(const mcp_client *c, int64_t id)
{
    unsigned i, n = c->nlate < 32 ? c->nlate : 32;
    for (i = 0; i < n; i++) if (c->late[i] == id) return 1;
    return 0;
}

/* Sets a call's outcome to an error with this sentence (formatted like printf). A call keeps
   no mcp_error of its own: most calls succeed, and thousands may be in flight. If there is no
   memory for the sentence, mcp_call_result says so in its place. */
static void mcp__call_vsay(mcp_call *call, mcp_status st, const char *fmt, va_list ap)
{
    char m[sizeof ((mcp_error *)0)->message];
    size_t n;
    vsnprintf(m, sizeof m, fmt, ap);
    n = strlen(m) + 1;
    MCP_FREE(call->msg, NULL);
    if ((call->msg = (char *)MCP_MALLOC(n, NULL)) != NULL) memcpy(call->msg, m, n);
    call->status = st;
}

/* The details (rpc_code, http_status, sys_errno) stay: set before, they belong to this error. */
static void mcp__call_say(mcp_call *call, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);
static void mcp__call_say(mcp_call *call, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcp__call_vsay(call, st, fmt, ap);
    va_end(ap);
}

/* The connect's own verdict on a finished call: a new error, without the old one's details. */
static void mcp__call_restate(mcp_call *call, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);
static void mcp__call_restate(mcp_call *call, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    call->rpc_code = 0; call->http_status = call->sys_errno = 0;
    va_start(ap, fmt);
    mcp__call_vsay(call, st, fmt, ap);
    va_end(ap);
}

/* A call about to go again: no outcome yet. */
static void mcp__call_clear(mcp_call *call)
{
    MCP_FREE(call->msg, NULL); call->msg = NULL;
    call->rpc_code = 0; call->http_status = call->sys_errno = 0;
}

/* Ends a call in flight with an error; the message is formatted like printf. */
static void mcp__call_fail(mcp_call *call, mcp_status st, const char *fmt, ...) MCP__PRINTF(3, 4);
static void mcp__call_fail(mcp_call *call, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    mcp_client *c = call->c;
    if (call->status != MCP_AGAIN) return;
    if (c) { mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p); }
    if (call->mrtr) {                                    /* answers still coming: not needed now */
        mcp__mrtr *m = call->mrtr;
        mcp_request *r;
        for (r = c ? c->reqs : NULL; r; r = r->next)     /* held by the program: it can tell */
            if (r->mrtr == m) r->cancelled = 1;
        call->mrtr = NULL; m->call = NULL;
        mcp__mrtr_release(m);
    }
    va_start(ap, fmt);
    mcp__call_vsay(call, st, fmt, ap);
    va_end(ap);
    if (call->rf && st != MCP_ERR_CANCELLED && call->msg) {   /* it failed re-reading tools/list */
        char *was = call->msg;
        call->msg = NULL;
        mcp__call_say(call, st, "The tools/call got MCP error -32020 (its HTTP headers did not match), "
                      "and reading tools/list again failed: %.380s", was);
        MCP_FREE(was, NULL);
    }
    if (c && c->t && c->tp->abandon && !call->answered) c->tp->abandon(c->t, call->p.id);   /* drop its exchange */
    call->parked = 0;
    if (call->role && c) mcp__init_finish(c, call);
}

static void mcp__modern_headers(mcp_client *c, const char *method, const char *params, size_t plen, mcp_buf *out);
static int mcp__refresh_begin(mcp_client *c, mcp_call *call);
static char *mcp__params(const char *k1, const char *v1, const char *k2, const char *raw2, size_t *len,
                         mcp_error *err);
static void mcp__refresh_page(mcp_client *c, mcp_call *call, mcp_json_doc *doc);
static void mcp__refresh_free(mcp_call *call);

/* {"jsonrpc":"2.0","id":id,"method":method, then the caller adds the rest */
static void mcp__msg_head(mcp_client *c, int64_t id, const char *method)
{
    mcp__msg_begin(c);
    MCP__KEY(&c->w, "\"id\":"); mcp_jw_int(&c->w, id);
    MCP__KEY(&c->w, "\"method\":"); mcp_jw_str(&c->w, method);
}

/* The protocol _meta a call's params carry: the 2026-07-28 era, or while probing for it. */
static const char *mcp__call_meta(const mcp_client *c, int role)
{
    return c->modern || role == MCP__ROLE_PROBE ? c->meta : NULL;
}

/* Sends a call's request under its current id: the params get the progress token and, in
   the 2026-07-28 era (or while probing for it), the protocol _meta. */
static mcp_status mcp__call_send(mcp_client *c, mcp_call *call, const char *extra,
                                 const char *const *extra_keys, mcp_error *err)
{
    const char *meta = mcp__call_meta(c, call->role);
    mcp_buf hdrs;
    mcp_status st;
    mcp__msg_head(c, call->p.id, call->method);
    if (call->params || call->token || meta || extra) {
        MCP__KEY(&c->w, "\"params\":");
        mcp__write_params(&c->w, call->params, call->plen, call->token ? call->p.id : 0, meta, extra, extra_keys);
    }
    mcp_jw_obj_end(&c->w);
    memset(&hdrs, 0, sizeof hdrs);
    if (meta && (c->tp->flags & MCP_TRANSPORT_HTTP)) mcp__modern_headers(c, call->method, call->params, call->plen, &hdrs);
    st = mcp__send_built(c, call->p.id, mcp__send_how(call->method), hdrs.data, err);
    mcp_buf_free(&hdrs);
    return st;
}

#define MCP__FLATTEN 1               /* mcp__start: the params may hold CR or LF: made spaces */
#define MCP__BUILT 2                 /* mcp__start: the params are in c->w, after the head of the
                                        request for the next id (mcp__start_kv) */

/* Starts a request. params: a JSON object as text, already checked (or NULL), copied into
   the call's own allocation: a second buffer per call, freed at its end, makes the heap
   shrink and regrow under many large calls in flight (bench/rpc_bench.c measures it). */
static mcp_call *mcp__start(mcp_client *c, const char *method, const char *params, size_t plen, int how,
                            const mcp_call_opts *o, int role, mcp_error *err)
{
    mcp_call *call;
    int64_t now = mcp_time_ms();
    int tmo, token = o && (o->reset_on_progress || o->on_progress);
    int as_built = (how & MCP__BUILT) && !token && !mcp__call_meta(c, role);
    size_t ml = strlen(method);
    mcp_error local;
    mcp_status st;
    if (!err) err = &local;
    if (MCP__GOING(c)) { mcp__fail_closed(err); return NULL; }
    /* A request that goes out as built keeps its params only where they can be needed again:
       sent again (the 2026-07-28 era, the handshake) or quoted in an error (resources/read).
       64 calls of 16 KB in flight hold 1 MB less. */
    if (as_built && !c->modern && !role && strcmp(method, "resources/read")) params = NULL;
    call = (mcp_call *)MCP_MALLOC(sizeof *call + ml + 1 + (params ? plen + 1 : 0), NULL);
    if (!call) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory starting a request."); return NULL; }
    memset(call, 0, sizeof *call);
    call->c = c; call->status = MCP_AGAIN; call->p.heap_i = MCP__NOWHERE; call->role = role;
    call->method = (char *)(call + 1);                   /* method and params live after it */
    memcpy(call->method, method, ml + 1);
    if (params) {
        call->params = call->method + ml + 1;
        memcpy(call->params, params, plen); call->params[plen] = 0;
    }
    if (params && (how & MCP__FLATTEN)) mcp__one_line(call->params, plen);
    call->plen = params ? plen : 0;
    call->p.id = ++c->rpc.next_id;
    tmo = o && o->timeout_ms ? o->timeout_ms : c->d.timeout_ms;
    call->timeout_ms = tmo;
    call->p.deadline = tmo > 0 ? now + tmo : -1;
    call->p.hard = -1;
    if (o) {
        call->reset_on_progress = o->reset_on_progress;
        call->on_progress = o->on_progress; call->on_task = o->on_task; call->user = o->user;
        call->token = token;
        call->hard_ms = o->max_total_ms > 0 ? o->max_total_ms : tmo > 0 && o->reset_on_progress ? 10 * tmo : 0;
        if (call->hard_ms > 0) call->p.hard = now + call->hard_ms;
    }
    mcp__call_due(&call->p);
    if (!mcp__rpc_insert(&c->rpc, &call->p) || !mcp__heap_update(&c->rpc, &call->p)) {
        mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);
        MCP_FREE(call, NULL);
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory starting a request.");
        return NULL;
    }
    call->next = c->calls; call->prev = NULL;
    if (c->calls) c->calls->prev = call;
    c->calls = call;
    if (as_built) {
        mcp_jw_obj_end(&c->w);                           /* the request as it was built */
        st = mcp__send_built(c, call->p.id, mcp__send_how(method), NULL, err);
    } else st = mcp__call_send(c, call, NULL, NULL, err);
    if (st != MCP_OK) {
        call->role = MCP__ROLE_CALL;
        mcp__call_fail(call, err->status, "%s", err->message);
        mcp_call_free(call);
        return NULL;
    }
    return call;
}

/* Sends a call again as a new request (a new id, a fresh timeout): the connect moving from
   the server/discover probe to initialize, an input_required retry, a request whose
   2026-07-28 stream broke. method/params NULL: the same as before. */
static void mcp__call_reissue(mcp_client *c, mcp_call *call, int role, const char *method,
                              const char *params, const char *extra, const char *const *extra_keys)
{
    mcp_error e;
    char *own;
    size_t ml, pl;
    int64_t now = mcp_time_ms();
    call->status = MCP_AGAIN; call->role = role;  /* so a failure below ends it properly */
    if (method) {
        ml = strlen(method); pl = params ? strlen(params) : 0;
        if (!(own = (char *)MCP_MALLOC(ml + pl + 2, NULL))) {
            mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory sending a request again.");
            return;
        }
        memcpy(own, method, ml + 1);
        if (params) memcpy(own + ml + 1, params, pl + 1);
        MCP_FREE(call->own, NULL);
        call->own = own; call->method = own; call->params = params ? own + ml + 1 : NULL; call->plen = pl;
    }
    mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);
    mcp_json_free(call->doc); call->doc = NULL;
    mcp_json_free(call->errdoc); call->errdoc = NULL;
    mcp__call_clear(call);
    call->p.id = ++c->rpc.next_id;
    call->answered = 0;
    if (role == MCP__ROLE_INIT || role == MCP__ROLE_PROBE) c->init_id = call->p.id;   /* the connect's call, found by it */
    call->p.deadline = call->timeout_ms > 0 ? now + call->timeout_ms : -1;
    mcp__call_due(&call->p);
    if (!mcp__rpc_insert(&c->rpc, &call->p) || !mcp__heap_update(&c->rpc, &call->p)) {
        mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory sending a request again.");
        return;
    }
    if (mcp__call_send(c, call, extra, extra_keys, &e) != MCP_OK) mcp__call_fail(call, e.status, "%s", e.message);
}

/* Which capability a method needs from the server, as "name" or "name.sub". */
static const char *mcp__needs(const char *m)
{
    if (!strncmp(m, "tools/", 6)) return "tools";
    if (!strcmp(m, "resources/subscribe") || !strcmp(m, "resources/unsubscribe")) return "resources.subscribe";
    if (!strncmp(m, "resources/", 10)) return "resources";
    if (!strncmp(m, "prompts/", 8)) return "prompts";
    if (!strcmp(m, "completion/complete")) return "completions";
    if (!strcmp(m, "logging/setLevel")) return "logging";
    return NULL;
}

static mcp_status mcp__check_cap(mcp_client *c, const char *method, mcp_error *err)
{
    const char *need = mcp__needs(method), *dot;
    const mcp_json *caps = mcp_client_server_capabilities(c), *cap;
    char name[32];
    if (!need || (c->modern && !c->init)) return MCP_OK;   /* capabilities unknown: let it try */
    dot = strchr(need, '.');
    memcpy(name, need, dot ? (size_t)(dot - need) : strlen(need) + 1);
    if (dot) name[dot - need] = 0;
    cap = mcp_json_get(caps, name);
    if (!cap)
        return mcp__fail(err, MCP_ERR_INVALID, "The server did not declare the \"%s\" capability, so it "
                         "does not support %s.", name, method);
    if (dot && !mcp_json_is_true(mcp_json_get(cap, dot + 1)))
        return mcp__fail(err, MCP_ERR_INVALID, "The server did not declare \"%s\": {\"%s\": true}, so it "
                         "does not support %s.", name, dot + 1, method);
    return MCP_OK;
}

/* check: the text is only checked, the document is not read (mcp__json_check) */
static mcp_status mcp__parse_params(const char *params_json, int check, mcp_json_doc **doc, mcp_error *err)
{
    mcp_error pe;
    *doc = NULL;
    if (!params_json) return MCP_OK;
    *doc = check ? mcp__json_check(params_json, strlen(params_json), &pe)
                 : mcp_json_parse(params_json, strlen(params_json), &pe);
    if (!*doc) return mcp__fail(err, MCP_ERR_INVALID, "The params are not valid JSON: %s", pe.message);
    if (mcp_json_typeof(mcp_json_root(*doc)) != MCP_JSON_OBJECT) {
        mcp_json_free(*doc); *doc = NULL;
        return mcp__fail(err, MCP_ERR_INVALID, "The params must be a JSON object.");
    }
    return MCP_OK;
}

/* May this method be sent now? */
static mcp_status mcp__can_send(mcp_client *c, const char *method, mcp_error *err)
{
    if (!c || !method || !*method) return mcp__fail(err, MCP_ERR_INVALID, "A request needs a client and a method.");
    if (MCP__GOING(c)) return mcp__fail_closed(err);
    if (c->state != MCP__READY && !(c->state == MCP__CONNECTING && !strcmp(method, "ping")))
        return mcp__fail(err, MCP_ERR_INVALID, "The client is not connected yet: call mcp_client_connect first.");
    return mcp__check_cap(c, method, err);
}

MCPDEF mcp_call *mcp_client_send(mcp_client *c, const char *method, const char *params_json,
                                 const mcp_call_opts *opts, mcp_error *err)
{
    mcp_json_doc *pd;
    mcp_call *call;
    mcp__ckey *ck;
    int how;
    size_t plen = params_json ? strlen(params_json) : 0;
    if (mcp__can_send(c, method, err) != MCP_OK) return NULL;
    if (mcp__parse_params(params_json, 1, &pd, err) != MCP_OK) return NULL;  /* checks it */
    how = pd && pd->multiline ? MCP__FLATTEN : 0;
    mcp_json_free(pd);
    if ((call = mcp__cache_begin(c, method, params_json, plen, opts, &ck)) != NULL) { mcp__ok(err); return call; }
    if (method[0] == 't' && !strcmp(method, "tools/call") && mcp__tasks_tools(c)) {   /* 2025-11-25: as a task? */
        call = mcp__task_call(c, params_json, how, opts, err);
    } else {
        call = mcp__start(c, method, params_json, plen, how, opts, MCP__ROLE_CALL, err);
    }
    mcp__cache_attach(call, ck);
    if (call) mcp__ok(err);
    return call;
}

MCPDEF mcp_status mcp_call_status(const mcp_call *call) { return call ? call->status : MCP_ERR_INVALID; }
MCPDEF int64_t mcp_call_id(const mcp_call *call) { return call ? call->p.id : 0; }

MCPDEF mcp_status mcp_call_result(mcp_call *call, mcp_json_doc **result, mcp_error *err)
{
    if (result) *result = NULL;
    if (!call) return mcp__fail(err, MCP_ERR_INVALID, "mcp_call_result was given a NULL call.");
    if (call->status == MCP_AGAIN) return mcp__fail(err, MCP_AGAIN, "The request is still in flight.");
    if (call->status != MCP_OK) {
        if (err) {
            err->status = call->status; err->rpc_code = call->rpc_code;
            err->http_status = call->http_status; err->sys_errno = call->sys_errno;
            if (call->msg) snprintf(err->message, sizeof err->message, "%s", call->msg);
            else snprintf(err->message, sizeof err->message, "The request failed (%s); there was no memory "
                          "left for the message saying why.", mcp_status_str(call->status));
        }
        return call->status;
    }
    if (result) { *result = call->doc; call->doc = NULL; }
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_call_cancel(mcp_call *call, const char *reason)
{
    mcp_client *c;
    int64_t id;
    int gathering;
    if (!call) return MCP_ERR_INVALID;
    if (call->status != MCP_AGAIN) return call->status;
    if (call->role) return MCP_ERR_INVALID;          /* the spec forbids cancelling initialize */
    c = call->c; id = call->p.id;
    gathering = call->mrtr != NULL;                      /* answered input_required: nothing in flight */
    if (call->task) {                                    /* the server is told with tasks/cancel */
        int asking = call->task->phase != MCP__TASK_SLEEP && !gathering;
        if (reason) mcp__call_fail(call, MCP_ERR_CANCELLED, "Task \"%.80s\" cancelled: %.300s", call->task->id, reason);
        else mcp__call_fail(call, MCP_ERR_CANCELLED, "Task \"%.80s\" cancelled", call->task->id);
        if (c && asking) mcp__remember_late(c, id);
        mcp__task_cancel_send(c, call->task->id);
        return MCP_OK;
    }
    if (reason) mcp__call_fail(call, MCP_ERR_CANCELLED, "Request cancelled: %.400s", reason);
    else mcp__call_fail(call, MCP_ERR_CANCELLED, "Request cancelled");
    if (c && !gathering) { mcp__remember_late(c, id); mcp__send_cancelled(c, id, reason); }
    return MCP_OK;
}

MCPDEF void mcp_call_free(mcp_call *call)
{
    mcp_client *c;
    if (!call) return;
    if (call->status == MCP_AGAIN) {
        if (call->role) mcp__call_fail(call, MCP_ERR_CANCELLED, "Connect abandoned: the initialize call was freed");
        else mcp_call_cancel(call, NULL);
    }
    c = call->c;
    if (c) {
        if (call->prev) call->prev->next = call->next; else c->calls = call->next;
        if (call->next) call->next->prev = call->prev;
    }
    mcp_json_free(call->doc);
    mcp_json_free(call->errdoc);
    MCP_FREE(call->msg, NULL);
    MCP_FREE(call->own, NULL);
    MCP_FREE(call->ck, NULL);
    mcp__refresh_free(call);
    mcp__task_free(call);
    MCP_FREE(call->task_pre, NULL);
    MCP_FREE(call, NULL);
}

MCPDEF void mcp_client_interrupt(mcp_client *c)
{
    if (c) c->interrupted = 1;                 /* a signal handler may only set a flag */
}

MCPDEF mcp_status mcp_call_wait(mcp_call *call, int timeout_ms)
{
    int64_t end = timeout_ms >= 0 ? mcp_time_ms() + timeout_ms : -1, left;
    if (!call) return MCP_ERR_INVALID;
    while (call->status == MCP_AGAIN && call->c) {
        if (call->c->interrupted) {
            call->c->interrupted = 0;
            if (call->role) mcp__call_fail(call, MCP_ERR_CANCELLED, "Connect interrupted");
            else mcp_call_cancel(call, "interrupted");
            break;
        }
        left = end < 0 ? -1 : end - mcp_time_ms();
        if (end >= 0 && left <= 0) break;
        if (mcp_client_poll(call->c, (int)(left > 0x7FFFFFFF ? 0x7FFFFFFF : left)) == MCP_ERR_CLOSED &&
            call->status == MCP_AGAIN)
            break;
    }
    return call->status;
}

/* The blocking calls: a send, then this. */
static mcp_status mcp__wait_take(mcp_call *call, mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    mcp_call_wait(call, -1);
    st = mcp_call_result(call, result, err);
    mcp_call_free(call);
    return st;
}

/* ---- >>client.receive  responses, requests and notifications --------------------------------- */

/* The requests a server may make of a client, which on_request answers (ping is answered
   for it), in both eras: as JSON-RPC requests, or as input requests of a 2026-07-28 result. */
static int mcp__server_asks(const char *method)
{
    return method && (!strcmp(method, "roots/list") || !strcmp(method, "sampling/createMessage") ||
                      !strcmp(method, "elicitation/create"));
}

/* The TypeScript SDK's servers put "MCP error -32602: " in the message itself; the sentence
   says it once. */
static const char *mcp__rpc_unprefixed(const char *msg, long code)
{
    char head[40];
    int n = snprintf(head, sizeof head, "MCP error %ld:", code);
    if (n <= 0 || strncmp(msg, head, (size_t)n)) return msg;
    for (msg += n; *msg == ' '; msg++) {}
    return msg;
}

/* The sentence for a JSON-RPC error: "MCP error <code>: <message>", with what the codes of
   2026-07-28 (and a resource not found) mean spelled out. */
static void mcp__rpc_error_text(const mcp_call *call, const mcp_json *er, char *out, size_t n)
{
    long code = (long)mcp_json_num(mcp_json_get(er, "code"));
    const char *msg = mcp_json_str(mcp_json_get(er, "message"));
    const mcp_json *data = mcp_json_get(er, "data"), *x;
    char list[200];
    size_t i, k = 0;
    if (!msg) msg = "";
    msg = mcp__rpc_unprefixed(msg, code);
    if (code == -32022) {
        mcp__list_text(mcp_json_get(data, "supported"), list, sizeof list);
        snprintf(out, n, "MCP error -32022: the server does not support protocol version %.40s; it supports "
                 "%s (%.200s)", mcp_json_str(mcp_json_get(data, "requested")) ? mcp_json_str(mcp_json_get(data, "requested"))
                 : "the one asked for", list, msg);
    } else if (code == -32021) {
        x = mcp_json_get(data, "requiredCapabilities");
        list[0] = 0;
        for (i = 0; i < mcp_json_len(x) && k + 1 < sizeof list; i++) {
            const char *name = mcp_json_typeof(x) == MCP_JSON_OBJECT ? mcp_json_key_at(x, i, NULL)
                                                                     : mcp_json_str(mcp_json_at(x, i));
            int w = snprintf(list + k, sizeof list - k, "%s%.40s", i ? ", " : "", name ? name : "?");
            if (w < 0) break;
            k += (size_t)w;
        }
        snprintf(out, n, "MCP error -32021: the server needs client capabilities that were not declared: %s "
                 "(%.200s)", list[0] ? list : "(unnamed)", msg);
    } else if (code == -32020) {
        snprintf(out, n, "MCP error -32020: the HTTP headers did not match the request body (%.300s)", msg);
    } else if ((code == -32002 || code == -32602) && call && call->method && !strcmp(call->method, "resources/read")) {
        mcp_json_doc *p = call->params ? mcp_json_parse(call->params, call->plen, NULL) : NULL;
        snprintf(out, n, "Resource not found: %.200s (MCP error %ld: %.200s)",
                 mcp_json_str(mcp_json_get(mcp_json_root(p), "uri")) ? mcp_json_str(mcp_json_get(mcp_json_root(p), "uri"))
                 : "?", code, msg);
        mcp_json_free(p);
    } else {
        snprintf(out, n, "MCP error %ld: %.400s", code, msg);
    }
}

static void mcp__mrtr_begin(mcp_client *c, mcp_call *call, mcp_json_doc *doc);

static void mcp__on_response(mcp_client *c, mcp_json_doc *doc, mcp_msg_kind kind)
{
    const mcp_json *m = mcp_json_root(doc), *er;
    const char *rt;
    int64_t id = 0;
    int have = mcp_json_int64(mcp_json_get(m, "id"), &id);
    mcp_call *call = have ? MCP__CALL(mcp__rpc_find(&c->rpc, id)) : NULL;
    if (!call) {
        unsigned q;
        for (q = 0; have && q < 8; q++)                  /* the answer to a tasks/cancel: expected */
            if (c->task_cancels[q] == id && id) { c->task_cancels[q] = 0; mcp_json_free(doc); return; }
        c->stats.unknown_ids++;
        if (have && mcp__is_late(c, id))
            mcp__log(c, "Ignored a late response to request %lld, which was cancelled or timed out.", (long long)id);
        else if (kind == MCP_MSG_ERROR && mcp_json_typeof(mcp_json_get(m, "id")) == MCP_JSON_NULL)
            mcp__log(c, "The server reported an error for no request: MCP error %ld: %.300s",
                     (long)mcp_json_num(mcp_json_get(mcp_json_get(m, "error"), "code")),
                     mcp_json_str(mcp_json_get(mcp_json_get(m, "error"), "message")));
        else
            mcp__log(c, "Dropped a response whose id matches no request in flight.");
        mcp_json_free(doc);
        return;
    }
    if (kind == MCP_MSG_ERROR) {
        char msg[480];
        er = mcp_json_get(m, "error");
        mcp__rpc_error_text(call, er, msg, sizeof msg);
        mcp_json_free(call->errdoc);
        doc->root = *er;                                 /* kept: its data (supported versions...) */
        call->errdoc = doc;
        call->rpc_code = (long)mcp_json_num(mcp_json_get(er, "code"));
        call->answered = 1;
        if (mcp__refresh_begin(c, call)) return;
        if (call->task_pre) { mcp__task_prelist(c, call, doc, NULL); return; }
        if (call->task) mcp__call_fail(call, MCP_ERR_RPC, "Task \"%.80s\": %s", call->task->id, msg);
        else mcp__call_fail(call, MCP_ERR_RPC, "%s", msg);
        return;
    }
    rt = mcp_json_str(mcp_json_get(mcp_json_get(m, "result"), "resultType"));
    if (call->task && (!rt || !strcmp(rt, "complete"))) {   /* about the task it became */
        doc->root = *mcp_json_get(m, "result");
        mcp__task_answer(c, call, doc, mcp_json_root(doc));
        return;
    }
    if (!rt && call->task_asked && mcp_json_typeof(mcp_json_get(mcp_json_get(m, "result"), "task")) == MCP_JSON_OBJECT) {
        doc->root = *mcp_json_get(m, "result");          /* 2025-11-25: CreateTaskResult */
        mcp__task_begin(c, call, doc, mcp_json_root(doc));
        return;
    }
    if (rt && strcmp(rt, "complete")) {                  /* none means complete (older servers) */
        if (!strcmp(rt, "input_required")) {
            doc->root = *mcp_json_get(m, "result");
            mcp__mrtr_begin(c, call, doc);
            return;
        }
        if (!strcmp(rt, "task") && !call->task) {        /* 2026-07-28: the server made it a task */
            doc->root = *mcp_json_get(m, "result");
            mcp__task_begin(c, call, doc, mcp_json_root(doc));
            return;
        }
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "The server answered request %lld with resultType \"%.60s\", "
                       "which this client does not know.", (long long)id, rt);
        mcp_json_free(doc);
        return;
    }
    if (call->rf) { mcp__refresh_page(c, call, doc); return; }
    if (call->task_pre) { mcp__task_prelist(c, call, doc, mcp_json_get(m, "result")); return; }
    if (!c->modern && !c->d.no_tasks && call->method[0] == 't' && !strcmp(call->method, "tools/list") && mcp__tasks_tools(c))
        mcp__task_tools_note(c, mcp_json_get(m, "result"));
    mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);
    doc->root = *mcp_json_get(m, "result");             /* the caller sees the result as root */
    call->doc = doc;
    call->status = MCP_OK;
    if (call->ck) mcp__cache_keep(c, call);
    if (call->role) mcp__init_finish(c, call);
}

static mcp_status mcp__reply_begin(mcp_request *req, mcp_error *err)
{
    mcp_client *c = req->c;
    if (!c || MCP__GOING(c)) return mcp__fail_closed(err);
    mcp__msg_begin(c);
    mcp_jw_key(&c->w, "id"); mcp_jw_value(&c->w, req->id);
    return MCP_OK;
}

static void mcp__mrtr_release(mcp__mrtr *m)
{
    if (--m->refs > 0 || m->call) return;
    mcp_json_free(m->doc);
    mcp_jw_free(&m->answers);
    MCP_FREE(m, NULL);
}

static void mcp__request_free(mcp_request *req)
{
    if (req->c) {
        if (req->prev) req->prev->next = req->next; else req->c->reqs = req->next;
        if (req->next) req->next->prev = req->prev;
    }
    mcp_json_free(req->doc);
    if (req->mrtr) mcp__mrtr_release(req->mrtr);
    MCP_FREE(req, NULL);
}

static void mcp__mrtr_answer(mcp_client *c, mcp__mrtr *m, const char *key, size_t keylen, const mcp_json *result);

MCPDEF const char *mcp_request_method(const mcp_request *req) { return req ? req->method : NULL; }
MCPDEF const mcp_json *mcp_request_params(const mcp_request *req) { return req ? req->params : NULL; }
MCPDEF int mcp_request_cancelled(const mcp_request *req) { return req ? req->cancelled : 0; }

MCPDEF mcp_status mcp_request_reply(mcp_request *req, const char *result_json, mcp_error *err)
{
    mcp_status st;
    mcp_json_doc *rd = NULL;
    mcp_error pe;
    if (!req) return mcp__fail(err, MCP_ERR_INVALID, "mcp_request_reply was given a NULL request.");
    if (result_json && !(rd = mcp_json_parse(result_json, strlen(result_json), &pe))) {
        mcp_request_reply_error(req, -32603, "Internal error: the client produced an invalid result", NULL);
        return mcp__fail(err, MCP_ERR_INVALID, "The result is not valid JSON: %s", pe.message);
    }
    if (req->mrtr) {                                     /* an input request: into the retry */
        if (req->c && req->mrtr->call) mcp__mrtr_answer(req->c, req->mrtr, req->key, req->keylen, mcp_json_root(rd));
        mcp_json_free(rd);
        mcp__request_free(req);
        mcp__ok(err);
        return MCP_OK;
    }
    if (req->cancelled) { mcp_json_free(rd); mcp__request_free(req); mcp__ok(err); return MCP_OK; }
    st = mcp__reply_begin(req, err);
    if (st == MCP_OK) {
        mcp_jw *w = &req->c->w;
        mcp_jw_key(w, "result");
        if (rd) mcp_jw_value(w, mcp_json_root(rd)); else { mcp_jw_obj_begin(w); mcp_jw_obj_end(w); }
        mcp_jw_obj_end(w);
        st = mcp__send_built(req->c, -1, MCP_SEND_NOW, NULL, err);
    }
    mcp_json_free(rd);
    mcp__request_free(req);
    if (st == MCP_OK) mcp__ok(err);
    return st;
}

MCPDEF mcp_status mcp_request_reply_error(mcp_request *req, long code, const char *message, mcp_error *err)
{
    mcp_status st;
    if (!req) return mcp__fail(err, MCP_ERR_INVALID, "mcp_request_reply_error was given a NULL request.");
    if (req->mrtr) {   /* the server would only ask again: the call ends here (spec: no retry) */
        if (req->c && req->mrtr->call) {
            mcp_call *gone = req->mrtr->call;
            mcp__call_fail(gone, MCP_ERR_CANCELLED, "The request was given up: the server needs an "
                           "answer to its %.60s request, and on_request refused it (%.200s).",
                           req->method ? req->method : "input", message ? message : "no reason given");
            if (gone->task) mcp__task_cancel_send(req->c, gone->task->id);   /* the work stops too */
        }
        mcp__request_free(req);
        mcp__ok(err);
        return MCP_OK;
    }
    if (req->cancelled) { mcp__request_free(req); mcp__ok(err); return MCP_OK; }
    st = mcp__reply_begin(req, err);
    if (st == MCP_OK) {
        mcp_jw *w = &req->c->w;
        mcp_jw_key(w, "error"); mcp_jw_obj_begin(w);
        mcp_jw_key(w, "code"); mcp_jw_int(w, code);
        mcp_jw_key(w, "message"); mcp_jw_str(w, message ? message : "Error");
        mcp_jw_obj_end(w);
        mcp_jw_obj_end(w);
        st = mcp__send_built(req->c, -1, MCP_SEND_NOW, NULL, err);
    }
    mcp__request_free(req);
    if (st == MCP_OK) mcp__ok(err);
    return st;
}

static void mcp__on_request(mcp_client *c, mcp_json_doc *doc)
{
    const mcp_json *m = mcp_json_root(doc);
    mcp_request *req = (mcp_request *)MCP_MALLOC(sizeof *req, NULL);
    if (!req) { mcp_json_free(doc); return; }
    memset(req, 0, sizeof *req);
    req->c = c; req->doc = doc;
    req->id = mcp_json_get(m, "id");
    req->method = mcp_json_str(mcp_json_get(m, "method"));
    req->params = mcp_json_get(m, "params");
    req->next = c->reqs;
    if (c->reqs) c->reqs->prev = req;
    c->reqs = req;
    if (!strcmp(req->method, "ping")) mcp_request_reply(req, NULL, NULL);
    else if (c->d.on_request && mcp__server_asks(req->method)) c->d.on_request(c->d.user, c, req);
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

static void mcp__on_notification(mcp_client *c, mcp_json_doc *doc)
{
    const mcp_json *m = mcp_json_root(doc), *p = mcp_json_get(m, "params");
    const char *method = mcp_json_str(mcp_json_get(m, "method"));
    int64_t tok;
    mcp_call *call;
    mcp_request *r;
    if (!strcmp(method, "notifications/progress") && mcp_json_int64(mcp_json_get(p, "progressToken"), &tok) &&
        (call = mcp__progress_call(c, tok)) != NULL) {
        if (call->reset_on_progress && call->timeout_ms > 0) {
            call->p.deadline = mcp_time_ms() + call->timeout_ms;
            mcp__call_due(&call->p);
            mcp__heap_update(&c->rpc, &call->p);
        }
        if (call->on_progress) {
            const mcp_json *t = mcp_json_get(p, "total");
            call->on_progress(call->user, call, mcp_json_num(mcp_json_get(p, "progress")),
                              t ? mcp_json_num(t) : -1.0, mcp_json_str(mcp_json_get(p, "message")));
        }
    } else if (!strcmp(method, "notifications/tasks/status") || !strcmp(method, "notifications/tasks")) {
        mcp__task_notified(c, p);
    } else if (!strcmp(method, "notifications/cancelled")) {
        for (r = c->reqs; r; r = r->next)
            if (mcp_json_equal(r->id, mcp_json_get(p, "requestId"))) r->cancelled = 1;
    } else if (!strcmp(method, "notifications/subscriptions/acknowledged") &&
               mcp_json_int64(mcp_json_get(mcp_json_get(p, "_meta"), "io.modelcontextprotocol/subscriptionId"), &tok) &&
               (call = MCP__CALL(mcp__rpc_find(&c->rpc, tok))) != NULL) {
        call->reissued = 0;                              /* listening again: a later break may re-listen */
    }
    mcp__cache_notified(c, method, p);                   /* before the program lists again */
    if (c->d.on_notification) c->d.on_notification(c->d.user, c, method, p);
    mcp_json_free(doc);
}

static void mcp__on_message(mcp_client *c, mcp_json_doc *doc)
{
    const char *why = "";
    mcp_msg_kind kind = mcp_rpc_classify(mcp_json_root(doc), &why);
    c->stats.received++;
    switch (kind) {
    case MCP_MSG_RESULT: case MCP_MSG_ERROR: mcp__on_response(c, doc, kind); return;
    case MCP_MSG_REQUEST: mcp__on_request(c, doc); return;
    case MCP_MSG_NOTIFICATION: mcp__on_notification(c, doc); return;
    default:
        c->stats.dropped++;
        mcp__log(c, "Dropped a message from the server that is not JSON-RPC 2.0: %s.", why);
        mcp_json_free(doc);
    }
}

/* A batch (an array, 2025-03-26) is split into one document per message. */
static void mcp__on_doc(mcp_client *c, mcp_json_doc *doc)
{
    const mcp_json *root = mcp_json_root(doc), *m;
    size_t i, len;
    char *text;
    mcp_json_doc *one;
    if (mcp_json_typeof(root) != MCP_JSON_ARRAY) { mcp__on_message(c, doc); return; }
    if (!mcp_json_len(root)) { c->stats.dropped++; mcp__log(c, "Dropped an empty batch from the server."); }
    for (i = 0; (m = mcp_json_at(root, i)) != NULL; i++) {
        text = mcp_json_dump(m, 0, &len);
        one = text ? mcp_json_parse(text, len, NULL) : NULL;
        mcp_free(text);
        if (one) mcp__on_message(c, one);
    }
    mcp_json_free(doc);
}

static void mcp__on_transport(mcp_client *c, const mcp_tev *ev);

/* Runs queued events and their callbacks, oldest first; safe to re-enter from a callback. */
static void mcp__dispatch(mcp_client *c)
{
    mcp__ev *e;
    while ((e = c->qhead) != NULL) {
        c->qhead = e->next;
        if (!c->qhead) c->qtail = NULL;
        switch (e->kind) {
        case MCP__EV_MSG: mcp__on_doc(c, e->doc); break;
        case MCP__EV_STDERR:
            if (c->d.on_stderr) c->d.on_stderr(c->d.user, c, (const char *)(e + 1), e->len);
            break;
        case MCP__EV_LOG:
            if (c->d.on_log) c->d.on_log(c->d.user, c, (const char *)(e + 1));
            break;
        case MCP__EV_TRANSPORT: mcp__on_transport(c, e->tev); break;
        }
        MCP_FREE(e, NULL);
    }
}

/* Gives up on calls whose deadline passed; tells the server (except for initialize). */
static void mcp__expire(mcp_client *c, int64_t now)
{
    mcp_call *call;
    int64_t id;
    int hard, was_init;
    char why[80];
    while (c->rpc.nheap && c->rpc.heap[0]->due <= now) {
        call = MCP__CALL(c->rpc.heap[0]);
        if (mcp__task_wake(c, call)) continue;          /* a task's next poll */
        id = call->p.id;
        was_init = call->role;                /* initialize is never cancelled (and may be freed) */
        hard = call->p.hard >= 0 && call->p.due == call->p.hard && (call->p.deadline < 0 || call->p.hard < call->p.deadline);
        if (call->task) {                              /* the caller's wait ends on its millisecond too */
            mcp__task_timeout(c, call, call->p.hard >= 0 && call->p.hard <= now);
            continue;
        }
        if (hard) snprintf(why, sizeof why, "Request timeout after %dms (the maximum total time)", call->hard_ms);
        else snprintf(why, sizeof why, "Request timeout after %dms", call->timeout_ms);
        mcp__call_fail(call, MCP_ERR_TIMEOUT, "%s", why);
        if (!was_init) {
            mcp__remember_late(c, id);
            mcp__send_cancelled(c, id, why);
        }
    }
}


static char *mcp__strdup(const char *t)              /* NULL when out of memory */
{
    size_t n = strlen(t) + 1;
    char *d = (char *)MCP_MALLOC(n, NULL);
    if (d) memcpy(d, t, n);
    return d;
}

/* Whether a list goes on to the page after `pages` pages, from cursor prev (NULL on the first)
   to next: 1 yes, 0 it is complete, -1 no, with the sentence in err (a server that pages for
   ever, or hands back the cursor it was given). Both ways of paging (mcp__list_all and the
   -32020 refresh) follow it. */
static int mcp__page_on(const char *method, const char *prev, const char *next, size_t pages, mcp_error *err)
{
    if (!next || !*next) return 0;
    if (prev && !strcmp(prev, next)) {
        mcp__fail(err, MCP_ERR_PROTOCOL, "The server's %s returned the same nextCursor twice.", method);
        return -1;
    }
    if (pages + 1 >= 10000) {
        mcp__fail(err, MCP_ERR_PROTOCOL, "The server's %s kept returning pages past 10000.", method);
        return -1;
    }
    return 1;
}

/* ---- >>client.mrtr  multi round-trip requests (2026-07-28) ---------------------------------------
   A server that needs something from the client mid-request (a sampling, an elicitation, the
   roots) answers with resultType "input_required" instead of the result. */

/* input_required (2026-07-28): each input request goes to on_request, like a server request
   of the legacy era; once all are answered the call is sent again (a new id) with the
   answers and the server's requestState, echoed as it came. Rounds are bounded. While the
   answers are gathered the call's timeout is paused: a person may be typing. */
static void mcp__mrtr_finish(mcp_client *c, mcp__mrtr *m)
{
    static const char *const keys[] = { "inputResponses", "requestState", NULL };
    mcp_call *call = m->call;
    const mcp_json *rs = mcp_json_get(mcp_json_root(m->doc), "requestState");
    mcp_jw w;
    char *extra;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "inputResponses"); mcp_jw_obj_begin(&w);
    if (m->answers.len) mcp__jw_lit(&w, m->answers.buf, m->answers.len, 1);
    mcp_jw_obj_end(&w);
    if (rs) { mcp_jw_key(&w, "requestState"); mcp_jw_value(&w, rs); }
    mcp_jw_obj_end(&w);
    extra = mcp_jw_finish(&w, NULL, NULL);
    call->mrtr = NULL; m->call = NULL;
    mcp__mrtr_release(m);                                /* the call's hold on it */
    if (!extra) { mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory answering the server."); return; }
    extra[strlen(extra) - 1] = 0;                        /* members only: no braces */
    if (call->task) mcp__task_ask(c, call, "tasks/update", MCP__TASK_UPDATE, extra + 1);
    else mcp__call_reissue(c, call, MCP__ROLE_CALL, NULL, NULL, extra + 1, keys);
    mcp_free(extra);
}

static void mcp__mrtr_answer(mcp_client *c, mcp__mrtr *m, const char *key, size_t keylen, const mcp_json *result)
{
    if (key) {                                           /* "key": result, as one more member */
        if (m->answers.len) mcp__jw_put(&m->answers, ",", 1);
        mcp__jw_quoted(&m->answers, key, keylen, m->answers.len);
        mcp__jw_put(&m->answers, ":", 1);
        if (result) {
            char *t = mcp_json_dump(result, 0, NULL);
            if (t) { mcp__jw_put(&m->answers, t, strlen(t)); mcp_free(t); }
        } else {
            mcp__jw_put(&m->answers, "{}", 2);
        }
    }
    if (--m->pending == 0 && m->call) mcp__mrtr_finish(c, m);
}

static void mcp__mrtr_begin(mcp_client *c, mcp_call *call, mcp_json_doc *doc)
{
    const mcp_json *r = mcp_json_root(doc), *reqs = mcp_json_get(r, "inputRequests"), *q;
    mcp__mrtr *m;
    mcp_request *req, *first = NULL;
    size_t i, n = mcp_json_len(reqs);
    const char *method;
    mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);   /* paused */
    if (++call->rounds > 8 && !call->task) {             /* a task may ask many times in its life */
        mcp_json_free(doc);
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "The server asked for more input 8 times in a row; the request "
                       "was given up.");
        return;
    }
    for (i = 0; i < n; i++) {                            /* can every request be answered? */
        method = mcp_json_str(mcp_json_get(mcp_json_at(reqs, i), "method"));
        if (!c->d.on_request || !mcp__server_asks(method)) {
            mcp__call_fail(call, MCP_ERR_PROTOCOL, "The server needs input (%.60s) that this client cannot give: "
                           "set on_request and declare the capability.", method ? method : "an unknown request");
            if (call->task) mcp__task_cancel_send(c, call->task->id);
            mcp_json_free(doc);
            return;
        }
    }
    if (!(m = (mcp__mrtr *)MCP_MALLOC(sizeof *m, NULL))) {
        mcp_json_free(doc);
        mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory answering the server.");
        if (call->task) mcp__task_cancel_send(c, call->task->id);
        return;
    }
    memset(m, 0, sizeof *m);
    m->call = call; m->doc = doc; m->refs = 1;
    mcp_jw_init(&m->answers, 0);
    call->mrtr = m;
    for (i = 0; i < n; i++) {                            /* all requests first, then the callbacks */
        if (!(req = (mcp_request *)MCP_MALLOC(sizeof *req, NULL))) continue;
        memset(req, 0, sizeof *req);
        q = mcp_json_at(reqs, i);
        req->key = mcp_json_key_at(reqs, i, &req->keylen);
        if (call->task && req->key) {                    /* a task's poll repeats what it still waits for */
            if (mcp__task_key_seen(call->task, req->key, req->keylen)) { MCP_FREE(req, NULL); continue; }
            mcp__task_key_add(call->task, req->key, req->keylen);
        }
        req->c = c; req->mrtr = m; m->refs++; m->pending++;
        req->method = mcp_json_str(mcp_json_get(q, "method"));
        req->params = mcp_json_get(q, "params");
        req->next = c->reqs; if (c->reqs) c->reqs->prev = req; c->reqs = req;
        if (!first) first = req;
    }
    if (!m->pending) { mcp__mrtr_finish(c, m); return; } /* only requestState: retry at once */
    m->pending++; m->refs++;                             /* held while the callbacks run */
    for (req = c->reqs; req; ) {
        mcp_request *next = req->next;
        int last = req == first;
        if (req->mrtr == m && !m->call) mcp__request_free(req);    /* the call ended: never asked */
        else if (req->mrtr == m && !req->cancelled) c->d.on_request(c->d.user, c, req);
        if (last) break;
        req = next;
    }
    if (--m->pending == 0 && m->call) mcp__mrtr_finish(c, m);
    mcp__mrtr_release(m);
}

/* ---- >>client.tasks  a call the server runs as a task (2025-11-25, and the 2026-07-28 extension)
   The server answers the request with a task handle; the call stays in flight while the
   client polls tasks/get at the server's interval, feeds input requests to on_request, and
   ends with the task's result. Between polls the call sleeps in the deadline heap (out of
   the id table): its wake-up is its deadline, its hard deadline the caller's wait. */

#define MCP__TASK_POLL_MIN 100           /* ms: the server's pollInterval, bounded */
#define MCP__TASK_POLL_MAX 30000
#define MCP__TASK_POLL_DEFAULT 1000
#define MCP__TASK_KEYS_MAX 65536         /* bytes of input keys remembered (answered once) */

static void mcp__task_free(mcp_call *call)
{
    if (!call->task) return;
    MCP_FREE(call->task->id, NULL);
    mcp_buf_free(&call->task->keys);
    MCP_FREE(call->task, NULL);
    call->task = NULL;
}

/* The server's task object: 2025-11-25 nests it in "task", 2026-07-28 inlines it. */
static const char *mcp__task_status(const mcp_json *t) { return mcp_json_str(mcp_json_get(t, "status")); }

static void mcp__task_learn(mcp_call *call, const mcp_json *t)
{
    mcp__task *k = call->task;
    const mcp_json *iv = mcp_json_get(t, "pollIntervalMs"), *ttl = mcp_json_get(t, "ttlMs");
    const char *st = mcp__task_status(t);
    double ms;
    if (!iv) iv = mcp_json_get(t, "pollInterval");
    if (!ttl) ttl = mcp_json_get(t, "ttl");
    if (mcp_json_typeof(iv) == MCP_JSON_NUMBER) {
        ms = mcp_json_num(iv);
        k->interval = ms < MCP__TASK_POLL_MIN ? MCP__TASK_POLL_MIN : ms > MCP__TASK_POLL_MAX ? MCP__TASK_POLL_MAX : (int)ms;
    }
    if (mcp_json_typeof(ttl) == MCP_JSON_NUMBER && mcp_json_num(ttl) > 0 && k->ttl_due < 0) {
        ms = mcp_json_num(ttl);
        k->ttl_ms = ms > 0x7FFFFFFF ? 0x7FFFFFFF : (int)ms;
        k->ttl_due = mcp_time_ms() + k->ttl_ms;
    }
    if (st) {                                            /* reported when the status or its message changes */
        const char *msg = mcp_json_str(mcp_json_get(t, "statusMessage"));
        uint32_t said = 2166136261u;
        const char *q;
        for (q = msg; q && *q; q++) said = (said ^ (unsigned char)*q) * 16777619u;
        int news = strcmp(st, k->status) || said != k->said || k->polls == 0;
        snprintf(k->status, sizeof k->status, "%s", st);
        k->said = said;
        if (news && call->on_task) call->on_task(call->user, call, k->id, st, msg);
    }
}

/* Sleeps until the next poll: out of the id table, in the heap until its wake-up. */
static void mcp__task_sleep(mcp_client *c, mcp_call *call, int ms)
{
    call->task->phase = MCP__TASK_SLEEP;
    mcp__rpc_unlink(&c->rpc, &call->p);
    call->answered = 1;                                  /* nothing in flight to abandon */
    call->p.deadline = mcp_time_ms() + ms;
    mcp__call_due(&call->p);
    if (!mcp__heap_update(&c->rpc, &call->p)) mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory following a task.");
}

/* The next request about the task: tasks/get, tasks/result or tasks/update (extra: its
   inputResponses member). */
static void mcp__task_ask(mcp_client *c, mcp_call *call, const char *method, int phase, const char *extra)
{
    static const char *const keys[] = { "inputResponses", NULL };
    mcp_jw w;
    char *params;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "taskId"); mcp_jw_str(&w, call->task->id);
    mcp_jw_obj_end(&w);
    if (!(params = mcp_jw_finish(&w, NULL, NULL))) { mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory following a task."); return; }
    call->task->phase = phase;
    if (phase == MCP__TASK_GET) call->task->polls++;
    mcp__call_reissue(c, call, MCP__ROLE_CALL, method, params, extra, extra ? keys : NULL);
    mcp_free(params);
    if (phase == MCP__TASK_RESULT && call->status == MCP_AGAIN) {   /* it answers only at the end */
        call->p.deadline = -1;
        mcp__call_due(&call->p);
        mcp__heap_update(&c->rpc, &call->p);
    }
}

/* A request about a task whose answer nobody waits for (tasks/cancel): its answer is dropped
   as a late one. */
static void mcp__task_cancel_send(mcp_client *c, const char *task_id)
{
    const char *meta;
    mcp_jw w;
    char *params;
    size_t plen;
    mcp_buf hdrs;
    int64_t id;
    if (!c || MCP__GOING(c)) return;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "taskId"); mcp_jw_str(&w, task_id); mcp_jw_obj_end(&w);
    if (!(params = mcp_jw_finish(&w, &plen, NULL))) return;
    id = ++c->rpc.next_id;
    c->task_cancels[c->ntask_cancels++ % 8] = id;
    meta = mcp__call_meta(c, MCP__ROLE_CALL);
    mcp__msg_head(c, id, "tasks/cancel");
    MCP__KEY(&c->w, "\"params\":");
    mcp__write_params(&c->w, params, plen, 0, meta, NULL, NULL);
    mcp_jw_obj_end(&c->w);
    memset(&hdrs, 0, sizeof hdrs);
    if (meta && (c->tp->flags & MCP_TRANSPORT_HTTP)) mcp__modern_headers(c, "tasks/cancel", params, plen, &hdrs);
    mcp__send_built(c, id, 0, hdrs.data, NULL);
    mcp_buf_free(&hdrs);
    mcp_free(params);
}

static int mcp__task_key_seen(const mcp__task *k, const char *key, size_t n)
{
    size_t at = 0, len;
    while (at < k->keys.len) {
        len = strlen(k->keys.data + at);
        if (len == n && !memcmp(k->keys.data + at, key, n)) return 1;
        at += len + 1;
    }
    return 0;
}

static void mcp__task_key_add(mcp__task *k, const char *key, size_t n)
{
    if (k->keys.len + n + 1 > MCP__TASK_KEYS_MAX || memchr(key, 0, n)) return;
    if (mcp_buf_append(&k->keys, key, n) == MCP_OK) mcp_buf_append(&k->keys, "", 1);
}

static int mcp__task_new_keys(const mcp__task *k, const mcp_json *reqs)
{
    size_t i, n;
    const char *key;
    for (i = 0; i < mcp_json_len(reqs); i++)
        if ((key = mcp_json_key_at(reqs, i, &n)) != NULL && !mcp__task_key_seen(k, key, n)) return 1;
    return 0;
}

static void mcp__mrtr_begin(mcp_client *c, mcp_call *call, mcp_json_doc *doc);

/* What the task's state (t, inside doc, which is taken) means for the call. */
static void mcp__task_next(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *t)
{
    mcp__task *k = call->task;
    const char *st = mcp__task_status(t);
    int modern = c->modern;
    int64_t now = mcp_time_ms();
    if (st) mcp__task_learn(call, t);
    if (!st) {
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "The server's answer about task \"%.80s\" has no status.", k->id);
    } else if (!strcmp(st, "working") || (!strcmp(st, "input_required") && modern &&
                                           !mcp_json_len(mcp_json_get(t, "inputRequests")))) {
        if (k->ttl_due >= 0 && now > k->ttl_due + k->interval)
            mcp__call_fail(call, MCP_ERR_PROTOCOL, "Task \"%.80s\" was still %s after its TTL of %d ms; the server "
                           "may have dropped it.", k->id, st, k->ttl_ms);
        else mcp__task_sleep(c, call, k->interval);
    } else if (!strcmp(st, "input_required")) {
        if (!modern) { mcp__task_ask(c, call, "tasks/result", MCP__TASK_RESULT, NULL); }   /* its stream asks */
        else if (!mcp__task_new_keys(k, mcp_json_get(t, "inputRequests"))) {
            mcp__task_sleep(c, call, k->interval);       /* asked before, answered: the server catches up */
        } else {
            k->phase = MCP__TASK_UPDATE;
            doc->root = *t;
            mcp__mrtr_begin(c, call, doc);               /* on_request answers; then tasks/update */
            return;
        }
    } else if (!strcmp(st, "completed") && modern) {
        const mcp_json *r = mcp_json_get(t, "result");
        if (mcp_json_typeof(r) != MCP_JSON_OBJECT) {
            mcp__call_fail(call, MCP_ERR_PROTOCOL, "Task \"%.80s\" completed without a result.", k->id);
        } else {
            mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);
            doc->root = *r;
            call->doc = doc;
            call->status = MCP_OK;
            return;
        }
    } else if (!strcmp(st, "failed") && modern) {
        const mcp_json *e = mcp_json_get(t, "error");
        const char *why = mcp_json_str(mcp_json_get(e, "message"));
        call->rpc_code = (long)mcp_json_num(mcp_json_get(e, "code"));
        if (e) mcp__call_fail(call, MCP_ERR_RPC, "Task \"%.80s\" failed: MCP error %ld: %.300s", k->id, call->rpc_code,
                              why ? why : "(no message)");
        else mcp__call_fail(call, MCP_ERR_PROTOCOL, "Task \"%.80s\" failed without an error: %.300s", k->id,
                            mcp_json_str(mcp_json_get(t, "statusMessage")) ? mcp_json_str(mcp_json_get(t, "statusMessage")) : "no message");
    } else if (!strcmp(st, "completed") || !strcmp(st, "failed")) {
        mcp__task_ask(c, call, "tasks/result", MCP__TASK_RESULT, NULL);   /* 2025-11-25: the result, or the error */
    } else if (!strcmp(st, "cancelled")) {
        const char *why = mcp_json_str(mcp_json_get(t, "statusMessage"));
        mcp__call_fail(call, MCP_ERR_CANCELLED, "The server cancelled task \"%.80s\"%s%.300s", k->id, why ? ": " : ".",
                       why ? why : "");
    } else {
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "Task \"%.80s\" has the status \"%.40s\", which this client does not know.",
                       k->id, st);
    }
    mcp_json_free(doc);
}

/* The server answered the call with a task handle (result r, inside doc): from now on the
   call follows the task. */
static void mcp__task_begin(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r)
{
    const mcp_json *t = mcp_json_typeof(mcp_json_get(r, "task")) == MCP_JSON_OBJECT ? mcp_json_get(r, "task") : r;
    const char *id = mcp_json_str(mcp_json_get(t, "taskId"));
    mcp__task *k;
    if (!id || !*id) {
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "The server answered with a task that has no taskId.");
        mcp_json_free(doc);
        return;
    }
    if (!(k = (mcp__task *)MCP_MALLOC(sizeof *k, NULL)) || !(memset(k, 0, sizeof *k), k->id = mcp__strdup(id))) {
        MCP_FREE(k, NULL);
        mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory following a task.");
        mcp_json_free(doc);
        return;
    }
    k->token = call->token ? call->p.id : 0;             /* progress keeps coming under it */
    call->token = 0;
    k->interval = MCP__TASK_POLL_DEFAULT;
    k->ttl_due = -1;
    call->task = k;
    if (call->hard_ms <= 0) { call->p.hard = -1; mcp__call_due(&call->p); }   /* no cap but the caller's */
    mcp__task_next(c, call, doc, t);
}

/* An answer to a request about the task (tasks/get, tasks/update, tasks/result). */
static void mcp__task_answer(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r)
{
    mcp__task *k = call->task;
    if (k->phase == MCP__TASK_UPDATE) {                  /* acknowledged: look again soon */
        mcp_json_free(doc);
        mcp__task_sleep(c, call, k->interval < 500 ? k->interval : 500);
        return;
    }
    if (k->phase == MCP__TASK_RESULT) {                  /* what the request itself returns */
        mcp__rpc_unlink(&c->rpc, &call->p); mcp__heap_remove(&c->rpc, &call->p);
        doc->root = *r;
        call->doc = doc;
        call->status = MCP_OK;
        return;
    }
    mcp__task_next(c, call, doc, r);
}

/* The caller's wait is over (hard), or a request about the task went unanswered: the call
   fails, and the server is told to stop. */
static void mcp__task_timeout(mcp_client *c, mcp_call *call, int hard)
{
    mcp__task *k = call->task;
    int asking = k->phase != MCP__TASK_SLEEP && !call->mrtr;
    int64_t rid = call->p.id;
    if (hard) mcp__call_fail(call, MCP_ERR_TIMEOUT, "Task \"%.80s\" did not finish within %dms (the call's maximum "
                             "total time); it was cancelled.", k->id, call->hard_ms);
    else mcp__call_fail(call, MCP_ERR_TIMEOUT, "Request timeout after %dms (asking the server about task \"%.80s\"); "
                        "the task was cancelled.", call->timeout_ms, k->id);
    if (asking) mcp__remember_late(c, rid);
    mcp__task_cancel_send(c, k->id);
}

/* The deadline of a sleeping task is its next poll; 1 when that is what came due. */
static int mcp__task_wake(mcp_client *c, mcp_call *call)
{
    if (!call->task || call->task->phase != MCP__TASK_SLEEP || call->p.due != call->p.deadline) return 0;
    if (call->p.hard >= 0 && call->p.hard <= call->p.deadline) return 0;
    mcp__task_ask(c, call, "tasks/get", MCP__TASK_GET, NULL);
    return 1;
}

/* notifications/tasks/status (2025-11-25) and notifications/tasks (2026-07-28): the state of
   a task, pushed. A sleeping call looks at once when it says more than "working". */
static void mcp__task_notified(mcp_client *c, const mcp_json *p)
{
    const char *id = mcp_json_str(mcp_json_get(p, "taskId")), *st = mcp__task_status(p);
    mcp_call *call;
    if (!id || !st) return;
    for (call = c->calls; call; call = call->next) {
        if (!call->task || call->status != MCP_AGAIN || strcmp(call->task->id, id)) continue;
        mcp__task_learn(call, p);
        if (call->task->phase == MCP__TASK_SLEEP && strcmp(st, "working")) {
            call->p.deadline = mcp_time_ms();
            mcp__call_due(&call->p);
            mcp__heap_update(&c->rpc, &call->p);
        }
    }
}

/* The call a progress token belongs to: its own id, or the first id of a call now a task. */
static mcp_call *mcp__progress_call(mcp_client *c, int64_t tok)
{
    mcp_call *call = MCP__CALL(mcp__rpc_find(&c->rpc, tok));
    if (call && !call->task) return call;
    for (call = c->calls; call; call = call->next)
        if (call->task && call->task->token == tok && call->status == MCP_AGAIN) return call;
    return NULL;
}

/* ---- when to ask for a task (2025-11-25): the server's capability and the tool's taskSupport */

static int mcp__tasks_tools(const mcp_client *c)
{
    const mcp_json *caps = mcp_client_server_capabilities(c);
    return !c->d.no_tasks && !c->modern &&
           mcp_json_get(mcp_json_get(mcp_json_get(mcp_json_get(caps, "tasks"), "requests"), "tools"), "call") != NULL;
}

/* tools/list pages seen: each tool's taskSupport, "name\0r" (required), "o", "f". */
static void mcp__task_tools_note(mcp_client *c, const mcp_json *result)
{
    const mcp_json *tools = mcp_json_get(result, "tools"), *tool;
    size_t i;
    mcp_json_foreach(tools, i, tool) {
        const char *name = mcp_json_str(mcp_json_get(tool, "name"));
        const char *ts = mcp_json_str(mcp_json_get(mcp_json_get(tool, "execution"), "taskSupport"));
        char code = ts && !strcmp(ts, "required") ? 'r' : ts && !strcmp(ts, "optional") ? 'o' : 'f';
        if (!name || c->task_tools.len + strlen(name) + 3 > ((size_t)1 << 20)) continue;
        if (mcp_buf_append(&c->task_tools, name, strlen(name) + 1) == MCP_OK) mcp_buf_append(&c->task_tools, &code, 1);
        c->task_tools_known = 1;
    }
}

/* 'r', 'o', 'f', or 0 when no tools/list said (the last page that named it wins). */
static char mcp__task_support(const mcp_client *c, const char *name)
{
    size_t at = 0, len;
    char found = 0;
    while (at + 1 < c->task_tools.len) {
        len = strlen(c->task_tools.data + at);
        if (!strcmp(c->task_tools.data + at, name)) found = c->task_tools.data[at + len + 1];
        at += len + 2;
    }
    return found;
}

/* tools/call params with "task" added, when this call is to be a task (else NULL): its tool
   requires it, or allows it and the caller asked (opt). */
static char *mcp__task_params(mcp_client *c, const char *params, size_t plen, int opt)
{
    mcp_json_doc *pd;
    const char *name;
    char support, *out = NULL;
    size_t len;
    if (!mcp__tasks_tools(c) || !params) return NULL;
    if (!(pd = mcp_json_parse(params, plen, NULL))) return NULL;
    name = mcp_json_str(mcp_json_get(mcp_json_root(pd), "name"));
    support = name ? mcp__task_support(c, name) : 'f';
    if (support == 'r' || (support == 'o' && opt) || mcp_json_get(mcp_json_root(pd), "task")) {
        mcp_jw w;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        {
            const mcp_json *p = mcp_json_root(pd), *v;
            size_t i, kl;
            for (i = 0; (v = mcp_json_at(p, i)) != NULL; i++) {
                const char *k = mcp_json_key_at(p, i, &kl);
                mcp_jw_keyn(&w, k, kl); mcp_jw_value(&w, v);
            }
        }
        if (!mcp_json_get(mcp_json_root(pd), "task")) {  /* the program's own (a ttl, say) stays */
            mcp_jw_key(&w, "task"); mcp_jw_obj_begin(&w); mcp_jw_obj_end(&w);
        }
        mcp_jw_obj_end(&w);
        out = mcp_jw_finish(&w, &len, NULL);
    }
    mcp_json_free(pd);
    return out;
}

/* A tools/call to a server with task tools whose tools the client has not listed yet reads
   tools/list first (as one call: the same id sequence, the same timeout), to learn whether
   the tool must run as a task. */
static mcp_call *mcp__task_call(mcp_client *c, const char *params, int how, const mcp_call_opts *o, mcp_error *err)
{
    size_t plen = params ? strlen(params) : 0;
    char *tp, *keep;
    mcp_call *call;
    if (!c->task_tools_known && params) {
        if (!(keep = mcp__strdup(params))) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory starting a request."); return NULL; }
        if ((call = mcp__start(c, "tools/list", NULL, 0, 0, o, MCP__ROLE_CALL, err)) != NULL) {
            call->task_pre = keep;
            call->task_opt = o && o->task;
        } else MCP_FREE(keep, NULL);
        return call;
    }
    tp = mcp__task_params(c, params, plen, o && o->task);
    call = mcp__start(c, "tools/call", tp ? tp : params, tp ? strlen(tp) : plen, how, o, MCP__ROLE_CALL, err);
    if (call) call->task_asked = tp != NULL;
    mcp_free(tp);
    return call;
}

/* A page of the tools/list read first (r; NULL: it failed): the next page, or the tools/call. */
static int mcp__task_prelist(mcp_client *c, mcp_call *call, mcp_json_doc *doc, const mcp_json *r)
{
    const char *cursor = mcp_json_str(mcp_json_get(r, "nextCursor"));
    char *tp, *pre;
    if (r) mcp__task_tools_note(c, r);
    c->task_tools_known = 1;                             /* failed or not: asked once */
    if (r && cursor && *cursor && call->rounds++ < 100) {
        mcp_jw w;
        char *params;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w); mcp_jw_key(&w, "cursor"); mcp_jw_str(&w, cursor); mcp_jw_obj_end(&w);
        mcp_json_free(doc);
        if (!(params = mcp_jw_finish(&w, NULL, NULL))) { mcp__call_fail(call, MCP_ERR_NOMEM, "Out of memory starting a request."); return 1; }
        mcp__call_reissue(c, call, MCP__ROLE_CALL, "tools/list", params, NULL, NULL);
        mcp_free(params);
        return 1;
    }
    if (doc != call->errdoc) mcp_json_free(doc);
    call->rounds = 0;
    pre = call->task_pre; call->task_pre = NULL;
    tp = mcp__task_params(c, pre, strlen(pre), call->task_opt);
    call->task_asked = tp != NULL;
    mcp__call_reissue(c, call, MCP__ROLE_CALL, "tools/call", tp ? tp : pre, NULL, NULL);
    mcp_free(tp);
    MCP_FREE(pre, NULL);
    return 1;
}

MCPDEF const char *mcp_call_task_id(const mcp_call *call) { return call && call->task ? call->task->id : NULL; }

MCPDEF mcp_call *mcp_client_attach_task(mcp_client *c, const char *task_id, const mcp_call_opts *opts, mcp_error *err)
{
    mcp_call *call;
    mcp_jw w;
    char *params;
    size_t len;
    mcp__task *k;
    if (!task_id || !*task_id) { mcp__fail(err, MCP_ERR_INVALID, "mcp_client_attach_task needs a task id."); return NULL; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "taskId"); mcp_jw_str(&w, task_id); mcp_jw_obj_end(&w);
    if (!(params = mcp_jw_finish(&w, &len, err))) return NULL;
    call = mcp_client_send(c, "tasks/get", params, opts, err);
    mcp_free(params);
    if (!call) return NULL;
    /* the call is a task from the start: its first tasks/get is already out */
    if (!(k = (mcp__task *)MCP_MALLOC(sizeof *k, NULL)) || !(memset(k, 0, sizeof *k), k->id = mcp__strdup(task_id))) {
        MCP_FREE(k, NULL);
        mcp_call_free(call);
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory following a task.");
        return NULL;
    }
    k->interval = MCP__TASK_POLL_DEFAULT; k->ttl_due = -1; k->phase = MCP__TASK_GET; k->polls = 1;
    call->task = k;
    call->token = 0;
    if (call->hard_ms <= 0) { call->p.hard = -1; mcp__call_due(&call->p); mcp__heap_update(&c->rpc, &call->p); }
    return call;
}

/* ---- >>client.modern  2026-07-28 over HTTP: request headers, x-mcp-header, -32020 --------- */
#ifdef MCP_NO_HTTP   /* without the HTTP layer there are no 2026-07-28 headers to build */
static void mcp__modern_headers(mcp_client *c, const char *method, const char *params, size_t plen, mcp_buf *out)
{ (void)c; (void)method; (void)params; (void)plen; (void)out; }
static int mcp__xhdr_tool(mcp_client *c, const mcp_json *tool, mcp_jw *specs) { (void)c; (void)tool; (void)specs; return 1; }
static void mcp__xhdr_keep(mcp_client *c, mcp_jw *specs) { (void)c; (void)specs; }
static int mcp__refresh_begin(mcp_client *c, mcp_call *call) { (void)c; (void)call; return 0; }
static void mcp__refresh_page(mcp_client *c, mcp_call *call, mcp_json_doc *doc) { (void)c; (void)call; mcp_json_free(doc); }
static void mcp__refresh_free(mcp_call *call) { (void)call; }
#else

/* A header value as 2026-07-28 wants it: plain when it is printable ASCII without spaces at
   either end (and does not look like the sentinel), else =?base64?...?= of its UTF-8 bytes. */
static void mcp__hdr_value(mcp_buf *out, const char *v, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *u = (const unsigned char *)v;
    size_t i;
    int safe = 1;
    char q[4];
    for (i = 0; i < n && safe; i++) safe = u[i] >= 0x20 && u[i] <= 0x7E;
    if (n && (v[0] == ' ' || v[n - 1] == ' ')) safe = 0;
    if (n >= 11 && !memcmp(v, "=?base64?", 9) && !memcmp(v + n - 2, "?=", 2)) safe = 0;
    if (safe) { mcp_buf_append(out, v, n); return; }
    mcp_buf_append(out, "=?base64?", 9);
    for (i = 0; i < n; i += 3) {
        unsigned b = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) | (i + 2 < n ? u[i + 2] : 0);
        q[0] = b64[b >> 18]; q[1] = b64[(b >> 12) & 63];
        q[2] = i + 1 < n ? b64[(b >> 6) & 63] : '='; q[3] = i + 2 < n ? b64[b & 63] : '=';
        mcp_buf_append(out, q, 4);
    }
    mcp_buf_append(out, "?=", 2);
}

static void mcp__hdr_line(mcp_buf *out, const char *name, const char *value, size_t n, int encode)
{
    mcp_buf_append(out, name, strlen(name));
    mcp_buf_append(out, ": ", 2);
    if (encode) mcp__hdr_value(out, value, n); else mcp_buf_append(out, value, n);
    mcp_buf_append(out, "", 1);
}

/* The request headers of 2026-07-28: MCP-Protocol-Version, Mcp-Method, Mcp-Name (tools/call,
   prompts/get, resources/read) and Mcp-Param-{Name} for arguments the tool marks with
   x-mcp-header (known from the last tools/list). "\0"-separated, an empty one last. */
static void mcp__modern_headers(mcp_client *c, const char *method, const char *params, size_t plen, mcp_buf *out)
{
    mcp_json_doc *pd = NULL;
    const mcp_json *p, *spec, *one, *v;
    const char *name = NULL, *h;
    int tools = !strcmp(method, "tools/call");
    size_t i, j;
    char num[32];
    mcp__hdr_line(out, "MCP-Protocol-Version", c->meta_version, strlen(c->meta_version), 0);
    mcp__hdr_line(out, "Mcp-Method", method, strlen(method), 1);
    if (params && (tools || !strcmp(method, "prompts/get") || !strcmp(method, "resources/read"))) {
        pd = mcp_json_parse(params, plen, NULL);
        p = mcp_json_root(pd);
        v = mcp_json_get(p, strcmp(method, "resources/read") ? "name" : "uri");
        if ((name = mcp_json_str(v)) != NULL) mcp__hdr_line(out, "Mcp-Name", name, mcp_json_len(v), 1);
        spec = tools && name ? mcp_json_get(mcp_json_root(c->xhdr), name) : NULL;
        for (i = 0; (one = mcp_json_at(spec, i)) != NULL; i++) {
            v = mcp_json_get(p, "arguments");
            for (j = 1; j < mcp_json_len(one) && v; j++) v = mcp_json_get(v, mcp_json_str(mcp_json_at(one, j)));
            if (!v) continue;                            /* absent: no header */
            mcp_buf_append(out, "Mcp-Param-", 10);
            h = mcp_json_str(mcp_json_at(one, 0));
            if (mcp_json_typeof(v) == MCP_JSON_STRING) mcp__hdr_line(out, h, mcp_json_str(v), mcp_json_len(v), 1);
            else if (mcp_json_typeof(v) == MCP_JSON_BOOL) mcp__hdr_line(out, h, mcp_json_is_true(v) ? "true" : "false",
                                                                        mcp_json_is_true(v) ? 4 : 5, 0);
            else if (mcp_json_typeof(v) == MCP_JSON_NUMBER && mcp_json_int64(v, NULL)) {
                int64_t k;
                mcp_json_int64(v, &k);
                mcp__hdr_line(out, h, num, (size_t)mcp__i64toa(k, num), 0);
            } else {
                out->len -= 10;                          /* null or not a primitive: left out */
            }
        }
        mcp_json_free(pd);
    } else if (params && !strncmp(method, "tasks/", 6) && strcmp(method, "tasks/list")) {
        pd = mcp_json_parse(params, plen, NULL);         /* routed to the instance that holds the task */
        v = mcp_json_get(mcp_json_root(pd), "taskId");
        if ((name = mcp_json_str(v)) != NULL) mcp__hdr_line(out, "Mcp-Name", name, mcp_json_len(v), 1);
        mcp_json_free(pd);
    }
    mcp_buf_append(out, "", 1);
}

/* x-mcp-header markings of one tool's inputSchema: valid only on a string, integer or boolean
   property reached from the root through "properties" alone, a header token, unique in any
   case. Appends ["Name", "prop", ...] to specs for each; 0 with why set when one is invalid. */
static int mcp__xhdr_walk(const mcp_json *node, int on_path, const char **path, size_t depth, mcp_jw *specs,
                          const char **seen, size_t *nseen, const char **why)
{
    const mcp_json *x, *v, *props;
    const char *name, *t, *k;
    size_t i, j, kl;
    if (depth >= 32) { *why = "its schema nests properties too deeply"; return 0; }
    if (mcp_json_typeof(node) == MCP_JSON_ARRAY) {
        for (i = 0; i < mcp_json_len(node); i++)
            if (!mcp__xhdr_walk(mcp_json_at(node, i), 0, path, depth, specs, seen, nseen, why)) return 0;
        return 1;
    }
    if (mcp_json_typeof(node) != MCP_JSON_OBJECT) return 1;
    if ((x = mcp_json_get(node, "x-mcp-header")) != NULL) {
        name = mcp_json_str(x);
        t = mcp_json_str(mcp_json_get(node, "type"));
        if (!on_path || !depth) { *why = "x-mcp-header on a property not reached through properties alone"; return 0; }
        if (!name || !*name) { *why = "an empty x-mcp-header"; return 0; }
        for (i = 0; i < mcp_json_len(x); i++)
            if (!mcp__tchar((unsigned char)name[i])) { *why = "an x-mcp-header that is not a header token"; return 0; }
        if (!t || (strcmp(t, "string") && strcmp(t, "integer") && strcmp(t, "boolean"))) {
            *why = "x-mcp-header on a parameter that is not a string, integer or boolean"; return 0;
        }
        for (i = 0; i < *nseen; i++)
            if (mcp__ieq(name, strlen(name), seen[i]) && strlen(seen[i]) == strlen(name)) { *why = "a duplicate x-mcp-header"; return 0; }
        if (*nseen < 64) seen[(*nseen)++] = name;
        mcp_jw_arr_begin(specs);
        mcp_jw_str(specs, name);
        for (j = 0; j < depth; j++) mcp_jw_str(specs, path[j]);
        mcp_jw_arr_end(specs);
    }
    for (i = 0; (v = mcp_json_at(node, i)) != NULL; i++) {
        k = mcp_json_key_at(node, i, &kl);
        if (mcp__is_key(k, kl, "x-mcp-header")) continue;
        if (mcp__is_key(k, kl, "properties") && mcp_json_typeof(v) == MCP_JSON_OBJECT) {
            props = v;
            for (j = 0; j < mcp_json_len(props); j++) {
                path[depth] = mcp_json_key_at(props, j, NULL);
                if (!mcp__xhdr_walk(mcp_json_at(props, j), on_path, path, depth + 1, specs, seen, nseen, why)) return 0;
            }
        } else if (!mcp__xhdr_walk(v, 0, path, depth, specs, seen, nseen, why)) {
            return 0;
        }
    }
    return 1;
}

/* tools/list over 2026-07-28 HTTP: a tool whose markings are invalid is dropped (with a
   warning); the others' markings are kept for their tools/call headers. */
static int mcp__xhdr_tool(mcp_client *c, const mcp_json *tool, mcp_jw *specs)
{
    const char *path[32], *seen[64], *why = NULL, *name = mcp_json_str(mcp_json_get(tool, "name"));
    size_t nseen = 0, mark = specs->len;
    unsigned char top = specs->depth ? specs->stack[specs->depth - 1] : 0;
    if (!name) return 1;
    mcp_jw_key(specs, name);
    mcp_jw_arr_begin(specs);
    if (mcp__xhdr_walk(mcp_json_get(tool, "inputSchema"), 1, path, 0, specs, seen, &nseen, &why)) {
        mcp_jw_arr_end(specs);
        return 1;
    }
    specs->len = mark;                                   /* this tool's entry is taken back */
    specs->depth--;
    specs->stack[specs->depth - 1] = top;
    mcp__log(c, "Dropped the tool \"%.100s\" from tools/list: %s.", name, why);
    return 0;
}

/* The x-mcp-header markings read from every page of tools/list become the client's. */
static void mcp__xhdr_keep(mcp_client *c, mcp_jw *specs)
{
    char *t;
    size_t tl;
    mcp_jw_obj_end(specs);
    if ((t = mcp_jw_finish(specs, &tl, NULL)) != NULL) {
        mcp_json_free(c->xhdr);
        c->xhdr = mcp_json_parse(t, tl, NULL);
        mcp_free(t);
    }
}

/* HeaderMismatch (-32020) for a 2026-07-28 tools/call: the x-mcp-header markings were never
   read or are stale. The same call object reads tools/list again, every page, keeps the new
   markings, then sends the tools/call once more, as the spec asks of clients. */
typedef struct mcp__refresh {
    char *params;                        /* the tools/call's own params (NULL: none) */
    mcp_jw specs;                        /* the markings read so far */
    unsigned pages;
    char *cursor;                        /* the cursor of the page asked for last */
} mcp__refresh;

static void mcp__refresh_free(mcp_call *call)
{
    if (!call->rf) return;
    MCP_FREE(call->rf->params, NULL);
    mcp_free(call->rf->cursor);
    mcp_jw_free(&call->rf->specs);
    MCP_FREE(call->rf, NULL);
    call->rf = NULL;
}

static int mcp__refresh_begin(mcp_client *c, mcp_call *call)
{
    mcp__refresh *rf;
    if (!c->modern || !(c->tp->flags & MCP_TRANSPORT_HTTP) || call->refreshed || call->rpc_code != -32020 ||
        strcmp(call->method, "tools/call") || call->rounds ||   /* an input_required retry: its answers */
        !(rf = (mcp__refresh *)MCP_MALLOC(sizeof *rf, NULL)))     /* would be lost on the resend */
        return 0;
    memset(rf, 0, sizeof *rf);
    if (call->params && !(rf->params = (char *)MCP_MALLOC(call->plen + 1, NULL))) { MCP_FREE(rf, NULL); return 0; }
    if (call->params) memcpy(rf->params, call->params, call->plen + 1);
    mcp_jw_init(&rf->specs, 0);
    mcp_jw_obj_begin(&rf->specs);
    call->rf = rf; call->refreshed = 1;
    mcp__cache_drop(c, "tools/list", NULL, 0);           /* the kept pages are out of date too */
    mcp__log(c, "The server reported MCP error -32020 for a tools/call; reading tools/list again for its headers.");
    mcp__call_reissue(c, call, MCP__ROLE_CALL, "tools/list", NULL, NULL, NULL);
    return 1;
}

static void mcp__refresh_page(mcp_client *c, mcp_call *call, mcp_json_doc *doc)
{
    mcp__refresh *rf = call->rf;
    const mcp_json *r = mcp_json_get(mcp_json_root(doc), "result"), *tools = mcp_json_get(r, "tools");
    const char *next = mcp_json_str(mcp_json_get(r, "nextCursor"));
    char *t;
    size_t i;
    int on;
    mcp_error e;
    for (i = 0; i < mcp_json_len(tools); i++) mcp__xhdr_tool(c, mcp_json_at(tools, i), &rf->specs);
    if ((on = mcp__page_on("tools/list", rf->cursor, next, rf->pages++, &e)) != 0) {   /* the next page */
        t = on > 0 ? mcp__params("cursor", next, NULL, NULL, NULL, &e) : NULL;
        mcp_free(rf->cursor);
        rf->cursor = NULL;
        if (t && !(rf->cursor = mcp__strdup(next))) { mcp_free(t); t = NULL; mcp__fail(&e, MCP_ERR_NOMEM, "Out of memory."); }
        mcp_json_free(doc);
        if (t) mcp__call_reissue(c, call, MCP__ROLE_CALL, "tools/list", t, NULL, NULL);
        else mcp__call_fail(call, e.status, "%s", e.message);
        mcp_free(t);
        return;
    }
    mcp_json_free(doc);
    mcp__xhdr_keep(c, &rf->specs);
    mcp__call_reissue(c, call, MCP__ROLE_CALL, "tools/call", rf->params, NULL, NULL);
    mcp__refresh_free(call);
}

#endif /* MCP_NO_HTTP */

/* ---- >>client.transport  what the transport reports, and what the client makes of it ------
   The transport says what happened; each decision is made here, once: a message is parsed
   and queued, a failed request fails (or, for -32020, re-reads tools/list), a lost session
   is started again, a broken stream is resumed or its request sent again or failed, a lost
   connection closes the transport. The reports wait in the queue, so they act in order
   after the messages read before them. */

/* n bytes of s (NULL: none) at *p, and a 0 after them. */
static const char *mcp__put(char **p, const char *s, size_t n)
{
    char *d = *p;
    if (n) memcpy(d, s, n);
    d[n] = 0;
    *p += n + 1;
    return d;
}

/* Does message m answer request want (-1: any request in flight, each once)? Its call is
   then answered: it has nothing left to abandon. */
static int mcp__answers(mcp_client *c, const mcp_json *m, int64_t want)
{
    const mcp_json *idv = NULL;
    const char *k;
    size_t i, kl, n = mcp_json_typeof(m) == MCP_JSON_OBJECT ? mcp_json_len(m) : 0;
    int reply = 0;
    int64_t id;
    mcp_call *call;
    for (i = 0; i < n; i++) {              /* one pass over the members: runs on every message */
        k = mcp_json_key_at(m, i, &kl);
        if (kl == 2 && !memcmp(k, "id", 2)) { if (!idv) idv = mcp_json_at(m, i); }
        else if ((kl == 6 && !memcmp(k, "result", 6)) || (kl == 5 && !memcmp(k, "error", 5))) reply = 1;
    }
    if (!reply || !mcp_json_int64(idv, &id) || (want >= 0 && id != want)) return 0;
    call = MCP__CALL(mcp__rpc_find(&c->rpc, id));
    if (want < 0 && (!call || call->answered)) return 0;
    if (call) call->answered = 1;
    return 1;
}

MCPDEF int mcp_transport_report(mcp_client *c, const mcp_tev *ev)
{
    mcp_json_opts o;
    mcp_json_doc *doc;
    mcp_error pe;
    mcp__ev *e;
    mcp_tev *t;
    const mcp_json *m;
    size_t tl, bl, dl, i;
    char *p;
    int answered = 0;
    if (!c || !ev) return 0;
    tl = ev->text ? ev->len : 0;
    if (ev->kind == MCP_TEV_MESSAGE) {
        memset(&o, 0, sizeof o);
        o.max_size = c->d.max_message;
        if (!(doc = mcp_json_parse_ex(tl ? ev->text : "", tl, &o, &pe))) {
            c->stats.received++; c->stats.dropped++;
            if (c->tp->flags & MCP_TRANSPORT_HTTP)
                mcp__log(c, "Dropped a message from the server that is not JSON (%.300s).", pe.message);
            else
                mcp__log(c, "Dropped a line from the server that is not JSON (%.300s): %.*s%s", pe.message,
                         (int)(tl > 60 ? 60 : tl), tl ? ev->text : "", tl > 60 ? "..." : "");
            return 0;
        }
        m = mcp_json_root(doc);
        if (mcp_json_typeof(m) != MCP_JSON_ARRAY) answered = mcp__answers(c, m, ev->id);
        else for (i = 0; i < mcp_json_len(m); i++) answered += mcp__answers(c, mcp_json_at(m, i), ev->id);
        mcp__enqueue(c, MCP__EV_MSG, doc, NULL, 0);
        return answered;
    }
    if (ev->kind == MCP_TEV_STDERR || ev->kind == MCP_TEV_LOG) {
        int log = ev->kind == MCP_TEV_LOG;
        if (log && ev->status < 0) { c->stats.received++; c->stats.dropped++; }   /* a message lost */
        if (log ? c->d.on_log != NULL : c->d.on_stderr != NULL)
            mcp__enqueue(c, log ? MCP__EV_LOG : MCP__EV_STDERR, NULL, ev->text, tl);
        return 0;
    }
    if (ev->kind == MCP_TEV_CLOSED) c->closed_seen = 1;
    bl = ev->body ? ev->body_len : 0;
    dl = ev->detail ? strlen(ev->detail) : 0;
    /* the report and its texts (each ended by a 0) after the event; its own text is the
       event's, so the copies are: sentence, body, detail */
    if (!(e = mcp__enqueue(c, MCP__EV_TRANSPORT, NULL, NULL, sizeof *ev + tl + bl + dl + 2))) return 0;
    t = (mcp_tev *)(void *)(e + 1);
    *t = *ev;
    p = (char *)(t + 1);
    t->text = mcp__put(&p, ev->text, tl); t->body = mcp__put(&p, ev->body, bl); t->detail = mcp__put(&p, ev->detail, dl);
    e->tev = t;
    return 0;
}

static void mcp__close_event(mcp_client *c);

/* One step of the close, waiting up to `wait` ms (-1: until the step's time is up). The
   transport reports CLOSED at its end (or the client does it for a transport that does not). */
static void mcp__close_step(mcp_client *c, int wait)
{
    mcp_tev ev;
    if (c->state != MCP__CLOSING || c->tp->close(c->t, c->close_now, wait)) return;
    c->state = MCP__ENDED;
    if (c->closed_seen) return;
    memset(&ev, 0, sizeof ev);
    ev.kind = MCP_TEV_CLOSED; ev.id = -1; ev.status = MCP_ERR_CLOSED;
    mcp_transport_report(c, &ev);
}

/* The transport is to end (a lost connection, a limit, a failed connect, the program's
   close): its close begins, and blocks unless mcp_client_close_begin asked otherwise; the
   CLOSED event comes after every message read before it. An empty reason: the transport
   says how the server ended. */
static void mcp__transport_down(mcp_client *c, mcp_status st, const char *fmt, ...)
{
    va_list ap;
    if (MCP__GOING(c)) return;
    va_start(ap, fmt);
    vsnprintf(c->down_why, sizeof c->down_why, fmt, ap);
    va_end(ap);
    c->down_st = st;
    c->state = MCP__CLOSING;
    if (c->close_async) mcp__close_step(c, 0);           /* begins; the polls go on with it */
    else while (c->state == MCP__CLOSING) mcp__close_step(c, -1);
}

/* CLOSED: why it ended, in c->why (the client's reason first, else the transport's, and the
   server's most telling stderr line), then every call still in flight fails. */
static void mcp__on_closed(mcp_client *c, const mcp_tev *ev)
{
    char *reason = c->down_why;
    snprintf(c->how, sizeof c->how, "%s", ev->detail);
    snprintf(c->quote, sizeof c->quote, "%s", ev->body);
    if (!reason[0]) {
        if (c->user_closed || !ev->len) snprintf(reason, sizeof c->down_why, "the client closed the connection");
        else { snprintf(reason, sizeof c->down_why, "%s", ev->text); c->exited = ev->server_ended; }
    }
    if (!c->why.message[0]) mcp__fail(&c->why, c->down_st, "%s%s%s", reason, c->quote[0] ? ": " : "", c->quote);
    mcp__close_event(c);
}

/* The CLOSE: every call still in flight fails, on_close fires once. */
static void mcp__close_event(mcp_client *c)
{
    mcp_call *call, *next;
    if (c->state == MCP__CLOSED) return;
    c->state = MCP__CLOSED;
    for (call = c->calls; call; call = next) {
        next = call->next;
        if (call->status != MCP_AGAIN) continue;
        if (c->user_closed) mcp__call_fail(call, MCP_ERR_CLOSED, "Transport closed");
        else mcp__call_fail(call, MCP_ERR_CLOSED, "Transport closed (%.400s)", c->why.message);
    }
    if (c->d.on_close) c->d.on_close(c->d.user, c, &c->why);
}

static void mcp__tp_abandon(mcp_client *c, int64_t id)
{
    if (c->t && c->tp->abandon) c->tp->abandon(c->t, id);
}

/* An HTTP error's body may be a JSON-RPC error (2026-07-28 servers answer 400 with one):
   the call keeps its code and document, and the sentence names the code's meaning. */
static int mcp__body_error(mcp_call *call, const mcp_tev *ev, char *msg, size_t n)
{
    mcp_json_doc *d = mcp_json_parse(ev->body, ev->body_len, NULL);
    const mcp_json *er = mcp_json_get(mcp_json_root(d), "error");
    char rpc[380];
    if (mcp_json_int64(mcp_json_get(er, "code"), NULL)) {
        mcp__rpc_error_text(call, er, rpc, sizeof rpc);
        snprintf(msg, n, "HTTP %d: %.380s", ev->http_status, rpc);
        call->rpc_code = (long)mcp_json_num(mcp_json_get(er, "code"));
        d->root = *er;
        mcp_json_free(call->errdoc);
        call->errdoc = d;
        return 1;
    }
    mcp_json_free(d);
    return 0;
}

/* FAILED: the request fails with the transport's sentence (an HTTP error's JSON-RPC body
   speaks for itself; -32020 re-reads tools/list first). */
static void mcp__on_failed(mcp_client *c, mcp_call *call, const mcp_tev *ev)
{
    char msg[480];
    int rpc;
    if (!call) return;                                   /* answered, timed out, cancelled */
    call->sys_errno = ev->sys_errno; call->http_status = ev->http_status;
    rpc = ev->body_len && mcp__body_error(call, ev, msg, sizeof msg);
    if (ev->http_status && mcp__refresh_begin(c, call)) return;
    mcp__call_fail(call, ev->status, "%s", rpc ? msg : ev->text);
}

static void mcp__reinit_done(mcp_client *c, int ok);

/* SESSION_LOST: a new initialize (once for all the requests that met the 404), then they go
   again in the new session. */
static void mcp__on_session_lost(mcp_client *c, mcp_call *call, const mcp_tev *ev)
{
    mcp_error e;
    if (ev->id >= 0 && !call) { mcp__tp_abandon(c, ev->id); return; }
    if (call) call->parked = 1; else c->parked_notes = 1;
    if (c->reiniting) return;
    c->reiniting = 1;
    c->stats.reinits++;
    mcp__cache_drop(c, NULL, NULL, 0);                   /* a new session: nothing it said holds */
    if (!c->init_params || !mcp__start(c, "initialize", c->init_params, strlen(c->init_params), 0, NULL, MCP__ROLE_REINIT, &e))
        mcp__reinit_done(c, 0);
}

/* The new session is there (ok) or not: the parked requests go again or fail. */
static void mcp__reinit_done(mcp_client *c, int ok)
{
    mcp_call *call, *next;
    c->reiniting = 0;
    if (!ok && MCP__GOING(c)) {                          /* the close fails them, as closed */
        for (call = c->calls; call; call = call->next) call->parked = 0;
        c->parked_notes = 0;
        return;
    }
    for (call = c->calls; call; call = next) {
        next = call->next;
        if (!call->parked || call->status != MCP_AGAIN) continue;
        call->parked = 0;
        if (ok && c->tp->resume) { c->tp->resume(c->t, call->p.id); continue; }
        call->http_status = 404;                         /* (failing it abandons it) */
        mcp__call_fail(call, MCP_ERR_HTTP, "HTTP 404: the session expired and a new one could not be started");
    }
    if (c->parked_notes) {
        c->parked_notes = 0;
        if (ok && c->tp->resume) c->tp->resume(c->t, -1); else mcp__tp_abandon(c, -1);
    }
}

/* BROKEN for a request: its stream ended before the answer. 2026-07-28 sends it again (a new
   id, once); earlier versions resume the stream from its last event (5 times at most). */
static void mcp__on_broken(mcp_client *c, mcp_call *call, const mcp_tev *ev)
{
    if (!call) { mcp__tp_abandon(c, ev->id); return; }
    if (c->modern) {
        if (call->reissued) {                            /* (failing it abandons it) */
            mcp__call_fail(call, MCP_ERR_PROTOCOL, "No response received for request ID %lld (the stream "
                           "broke twice)", (long long)call->p.id);
            return;
        }
        call->reissued = 1;
        mcp__tp_abandon(c, ev->id);                      /* the old id's exchange */
        mcp__call_reissue(c, call, call->role, NULL, NULL, NULL, NULL);
        return;
    }
    if (!ev->resumable || call->resumes >= 5 || !c->tp->resume) {
        mcp__call_fail(call, MCP_ERR_PROTOCOL, "No response received for request ID %lld: its event stream "
                       "ended (%.200s) %s", (long long)call->p.id, ev->text, ev->resumable ? "and 5 attempts to resume "
                       "it failed" : "without an event id to resume it from");
        return;
    }
    call->resumes++;
    c->tp->resume(c->t, ev->id);
}

/* BROKEN for the connection: the transport closes (a connect still waiting learns why). */
static void mcp__on_gone(mcp_client *c, const mcp_tev *ev)
{
    mcp_call *call;
    if (c->state == MCP__CONNECTING && ev->len && ev->status != MCP_ERR_CLOSED && ev->status != MCP_ERR_LIMIT &&
        (call = MCP__CALL(mcp__rpc_find(&c->rpc, c->init_id))) != NULL) {
        call->sys_errno = ev->sys_errno; call->http_status = ev->http_status;
        mcp__call_fail(call, ev->status, "%s", ev->text);
    }
    mcp__transport_down(c, ev->status, "%s", ev->text);
}

static void mcp__on_unauthorized(mcp_client *c, mcp_call *call, const mcp_tev *ev);

static void mcp__on_transport(mcp_client *c, const mcp_tev *ev)
{
    mcp_call *call = ev->id >= 0 ? MCP__CALL(mcp__rpc_find(&c->rpc, ev->id)) : NULL;
    switch (ev->kind) {
    case MCP_TEV_FAILED: mcp__on_failed(c, call, ev); break;
    case MCP_TEV_SESSION_LOST: mcp__on_session_lost(c, call, ev); break;
    case MCP_TEV_UNAUTHORIZED: mcp__on_unauthorized(c, call, ev); break;
    case MCP_TEV_BROKEN: if (ev->id < 0) mcp__on_gone(c, ev); else mcp__on_broken(c, call, ev); break;
    case MCP_TEV_CLOSED: mcp__on_closed(c, ev); break;
    default: break;
    }
}

/* ---- >>client.auth  the authorization flow's driver --------------------------------------------
   desc.auth set: a request that meets 401 or 403 waits (UNAUTHORIZED: the transport keeps it)
   while >>auth's flow runs; its HTTP requests go through >>transport.once, the browser comes
   back to >>transport.once's loopback receiver (or to mcp_client_auth_redirect). Done: the
   transport is given the token and the waiting requests go again; failed: they fail with the
   flow's sentence. A waiting request's timeout stops while it waits (the browser has its own,
   desc.auth->timeout_ms) and starts again when it goes. */
#if !defined(MCP_NO_AUTH) && !defined(MCP_NO_HTTP)
typedef struct mcp__authrun {
    mcp__auth a;
    mcp__once x;                         /* the flow's request in flight (x_on) */
    mcp__loop l;                         /* the loopback receiver (l_on) */
    int x_on, l_on, flow;                /* flow: requests wait for it */
    int64_t until;                       /* the browser's deadline */
    int parked_notes;                    /* messages of the client's own wait too (-1 ids) */
} mcp__authrun;

static void mcp__au_stop_io(mcp__authrun *r)
{
    if (r->x_on) { mcp__once_free(&r->x); r->x_on = 0; }
    if (r->l_on) { mcp__loop_free(&r->l); r->l_on = 0; }
}

/* The waiting requests go again (ok) or fail with the flow's sentence. */
static void mcp__au_release(mcp_client *c, int ok)
{
    mcp__authrun *r = c->au;
    mcp_call *call, *next;
    int64_t now = mcp_time_ms();
    r->flow = 0;
    for (call = c->calls; call; call = next) {
        next = call->next;
        if (!call->au_parked || call->status != MCP_AGAIN) continue;
        call->au_parked = 0;
        if (!ok) {
            call->http_status = 0;
            call->au_failed = 1;                         /* (the connect does not try initialize) */
            mcp__call_fail(call, r->a.err.status, "%s", r->a.err.message);
            continue;
        }
        call->p.deadline = call->timeout_ms > 0 ? now + call->timeout_ms : -1;   /* its timeout again */
        mcp__call_due(&call->p);
        mcp__heap_update(&c->rpc, &call->p);
        c->tp->resume(c->t, call->p.id);
    }
    if (r->parked_notes) {
        r->parked_notes = 0;
        if (ok) c->tp->resume(c->t, -1); else mcp__tp_abandon(c, -1);
    }
}

/* The token goes to the transport: every request carries it from now on. */
static int mcp__au_give(mcp_client *c)
{
    mcp__authrun *r = c->au;
    size_t n = r->a.access ? strlen(r->a.access) : 0;
    char *v;
    if (!c->t) return 1;                                 /* not connected yet: the connect gives it */
    if (!(v = (char *)MCP_MALLOC(n + 8, NULL))) return 0;
    memcpy(v, "Bearer ", 7); memcpy(v + 7, r->a.access, n + 1);
    c->tp->authorize(c->t, v);
    mcp__cache_drop(c, NULL, NULL, 1);                   /* another token: private results go */
    memset(v, 0, n + 7);
    MCP_FREE(v, NULL);
    return 1;
}

/* Does what the flow says, until it waits for an answer, the browser, or is over. */
static void mcp__au_drive(mcp_client *c)
{
    mcp__authrun *r = c->au;
    mcp__auth_do d;
    mcp_error e;
    mcp__auth_next(&r->a, &d);
    if (d.what == MCP__AD_FETCH && !r->x_on) {
        if (mcp__once_start(&r->x, d.method, d.url, d.headers, d.body, d.body_len, c->d.tls, 0, NULL, &e) != MCP_OK) {
            mcp__auth_unreachable(&r->a, &e);
            mcp__au_drive(c);
            return;
        }
        r->x_on = 1;
    } else if (d.what == MCP__AD_BROWSER && !r->until) {
        r->until = mcp_time_ms() + (c->d.auth->timeout_ms > 0 ? c->d.auth->timeout_ms : MCP__AUTH_TIMEOUT_MS);
        if (c->d.auth->open_url) c->d.auth->open_url(c->d.auth->user, d.url);
    } else if (d.what == MCP__AD_DONE || d.what == MCP__AD_FAILED) {
        mcp__au_stop_io(r);
        r->until = 0;
        if (d.what == MCP__AD_DONE && !mcp__au_give(c))
            mcp__au_fail(&r->a, MCP_ERR_NOMEM, "Out of memory during the authorization flow.");
        if (r->flow) mcp__au_release(c, r->a.state == MCP__AU_DONE);
    }
}

/* The loopback receiver takes only GET /callback?...&state=<this flow's>. */
static int mcp__au_expected(void *user, const char *target)
{
    const mcp__authrun *r = (const mcp__authrun *)user;
    const char *q = strchr(target, '?');
    mcp_buf st;
    int ok;
    if (strncmp(target, "/callback", 9) || (target[9] && target[9] != '?') || !q) return 0;
    memset(&st, 0, sizeof st);
    ok = mcp_http_form_get(q + 1, strcspn(q + 1, "#"), "state", &st, NULL) == 1 && st.data &&
         r->a.nonce[0] && !strcmp(st.data, r->a.nonce);
    mcp_buf_free(&st);
    return ok;
}

/* The redirect URI: the program's, else the loopback receiver's (opened now, on its port). */
static int mcp__au_redirect_uri(mcp_client *c, mcp_error *e)
{
    mcp__authrun *r = c->au;
    char uri[64];
    if (c->d.auth->redirect_uri) return mcp__au_set(&r->a.redirect, c->d.auth->redirect_uri) ? 1 : 0;
    if (c->d.auth->grant == MCP_AUTH_CLIENT_CREDENTIALS) return 1;
    if (!r->l_on) {
        if (mcp__loop_open(&r->l, c->d.auth->port, e) != MCP_OK) return 0;
        r->l_on = 1;
        r->l.expect = mcp__au_expected;
        r->l.user = r;
    }
    snprintf(uri, sizeof uri, "http://127.0.0.1:%u/callback", mcp__loop_port(&r->l));
    return mcp__au_set(&r->a.redirect, uri) ? 1 : 0;
}

/* UNAUTHORIZED: the request waits; the flow starts unless it runs already. */
static void mcp__on_unauthorized(mcp_client *c, mcp_call *call, const mcp_tev *ev)
{
    mcp__authrun *r = c->au;
    const char *vals[16], *p;
    char *copy;
    size_t n = 0;
    mcp_error e;
    if (ev->id >= 0 && !call) { mcp__tp_abandon(c, ev->id); return; }
    if (!r) { if (call) mcp__call_fail(call, MCP_ERR_HTTP, "%s", ev->text); return; }
    if (call) {
        call->au_parked = 1; call->http_status = ev->http_status;
        call->p.deadline = -1;                           /* the browser's deadline rules now */
        mcp__call_due(&call->p);
        mcp__heap_update(&c->rpc, &call->p);
    } else r->parked_notes = 1;
    if (r->flow) return;
    if (!(copy = mcp__au_dupn(ev->body ? ev->body : "", ev->body ? ev->body_len : 0))) {
        mcp__au_nomem(&r->a);
    } else {
        for (p = copy; n < 16 && *p; n++) {              /* one value per line */
            vals[n] = p;
            p += strcspn(p, "\n");
            if (*p) *(char *)p++ = 0;
        }
        r->flow = 1;
        r->until = 0;
        if (!mcp__au_redirect_uri(c, &e)) mcp__au_fail(&r->a, e.status ? e.status : MCP_ERR_NOMEM, "%s",
                                                       e.status ? e.message : "Out of memory.");
        else if (mcp__auth_challenge(&r->a, ev->http_status, vals, n) == MCP__AD_FAILED && ev->http_status == 403 &&
                 r->a.err.status == MCP_ERR_HTTP)
            mcp__au_fail(&r->a, MCP_ERR_HTTP, "%s", ev->text);   /* a 403 that is not about scope */
        MCP_FREE(copy, NULL);
    }
    r->flow = 1;
    mcp__au_drive(c);
}

/* The flow's I/O that is ready; the browser's deadline. */
static void mcp__au_io(mcp_client *c)
{
    mcp__authrun *r = c->au;
    mcp_status st;
    mcp_error e;
    const char *ct;
    if (!r) return;
    if (r->x_on && (st = mcp__once_io(&r->x, 0, &e)) != MCP_AGAIN) {
        r->x_on = 0;
        ct = mcp_http_resp_header(&r->x.resp, "content-type", 0);
        if (st == MCP_OK) mcp__auth_answer(&r->a, r->x.status, ct, r->x.body.data ? r->x.body.data : "", r->x.body.len);
        else mcp__auth_unreachable(&r->a, &e);
        mcp__once_free(&r->x);
        mcp__au_drive(c);
    }
    if (r->l_on && r->a.state == MCP__AU_BROWSER && mcp__loop_io(&r->l, 0, &e) == MCP_OK && r->l.target) {
        mcp__auth_redirect(&r->a, r->l.target);
        mcp__au_drive(c);
    }
    if (r->until && r->a.state == MCP__AU_BROWSER && mcp_time_ms() >= r->until) {
        r->until = 0;
        int ms = c->d.auth->timeout_ms > 0 ? c->d.auth->timeout_ms : MCP__AUTH_TIMEOUT_MS;
        mcp__au_fail(&r->a, MCP_ERR_AUTH, "No answer from the browser within %d %s: the authorization was not "
                     "completed.", ms >= 10000 ? ms / 1000 : ms, ms >= 10000 ? "s" : "ms");
        mcp__au_drive(c);
    }
}

static int mcp__pollfds(const mcp_client *c, mcp_pollfd *fds, int max);

/* One wait for the transport's descriptors and the flow's. */
static void mcp__poll_all(mcp_client *c, int wait)
{
    mcp_pollfd fds[64];
    int n = mcp__pollfds(c, fds, 64), total = mcp__pollfds(c, NULL, 0x7FFFFFFF);
    mcp__wait_fds(fds, n, total > n ? (wait < 0 || wait > 10 ? 10 : wait) : wait);
}

/* The flow's request, waited for a while (mcp_client_auth_redirect before the connect). */
static void mcp__au_io_wait(mcp_client *c)
{
    mcp_pollfd f;
    if (mcp__once_pollfd(&c->au->x, &f)) mcp__wait_fds(&f, 1, 100);
    mcp__au_io(c);
}

/* The flow's descriptors after the transport's (n of them in fds, max room). */
static int mcp__au_pollfds(const mcp_client *c, mcp_pollfd *fds, int n, int max)
{
    const mcp__authrun *r = c->au;
    mcp_pollfd f[3];
    int k = 0, i;
    if (!r) return n;
    if (r->x_on) k += mcp__once_pollfd(&r->x, f);
    if (r->l_on && r->a.state == MCP__AU_BROWSER) k += mcp__loop_pollfds(&r->l, f + k);
    for (i = 0; i < k; i++, n++) if (fds && n < max) fds[n] = f[i];
    return n;
}

static int64_t mcp__au_due(const mcp_client *c)
{
    const mcp__authrun *r = c->au;
    int64_t due = -1, t;
    if (!r) return -1;
    if (r->x_on) due = mcp__once_due(&r->x);
    if (r->l_on && (t = mcp__loop_due(&r->l)) >= 0 && (due < 0 || t < due)) due = t;
    if (r->until && (due < 0 || r->until < due)) due = r->until;
    if (!r->flow && !r->x_on && (t = mcp__auth_refresh_in(&r->a)) >= 0) {
        t = mcp_time_ms() + (t > 86400 ? 86400 : t) * 1000;     /* wall-clock seconds, roughly */
        if (due < 0 || t < due) due = t;
    }
    return due;
}

/* The token is about to expire and nothing runs: refresh it now, in the background. */
static void mcp__au_early(mcp_client *c)
{
    mcp__authrun *r = c->au;
    if (!r || r->flow || r->x_on || !c->t || c->state != MCP__READY) return;
    if (mcp__auth_due(&r->a) == MCP__AD_FETCH) mcp__au_drive(c);
}

static int mcp__au_waits(const mcp_client *c) { return c->au && (c->au->x_on || (c->au->l_on && c->au->a.state == MCP__AU_BROWSER)); }

static void mcp__au_free(mcp_client *c)
{
    if (!c->au) return;
    mcp__au_stop_io(c->au);
    mcp__auth_free(&c->au->a);
    MCP_FREE(c->au, NULL);
    c->au = NULL;
}

/* mcp_client_new: the flow's state, with tokens kept from before given to the transport. */
static mcp_status mcp__au_new(mcp_client *c, mcp_error *err)
{
    if (!c->d.auth) return MCP_OK;
    if (!c->tp->authorize || !c->tp->resume)
        return mcp__fail(err, MCP_ERR_INVALID, "desc.auth needs a transport that talks HTTP (MCP_HTTP or MCP_SSE).");
    if (!(c->au = (mcp__authrun *)MCP_MALLOC(sizeof *c->au, NULL))) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
    memset(c->au, 0, sizeof *c->au);
    if (!mcp__auth_init(&c->au->a, c->d.auth, c->d.url, NULL, NULL)) {
        mcp__au_free(c);
        return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
    }
    return MCP_OK;
}

MCPDEF mcp_status mcp_client_auth_redirect(mcp_client *c, const char *url, mcp_error *err)
{
    if (!c || !url) return mcp__fail(err, MCP_ERR_INVALID, "mcp_client_auth_redirect: the client or the URL is NULL.");
    if (!c->au || c->au->a.state != MCP__AU_BROWSER)
        return mcp__fail(err, MCP_ERR_INVALID, "No authorization is waiting for a redirect.");
    mcp__auth_redirect(&c->au->a, url);
    mcp__au_drive(c);
    while (!c->t && c->au->x_on) mcp__au_io_wait(c);     /* before the connect: no polls run it */
    if (c->au->a.state == MCP__AU_FAILED) { if (err) *err = c->au->a.err; return c->au->a.err.status; }
    mcp__ok(err);
    return MCP_OK;
}
#else
static void mcp__on_unauthorized(mcp_client *c, mcp_call *call, const mcp_tev *ev)
{
    if (ev->id >= 0 && !call) { mcp__tp_abandon(c, ev->id); return; }
    if (call) mcp__call_fail(call, MCP_ERR_HTTP, "%s", ev->text);
}
#define mcp__au_io(c) ((void)0)
#define mcp__au_pollfds(c, fds, n, max) (n)
#define mcp__au_due(c) ((int64_t)-1)
#define mcp__au_waits(c) 0
#define mcp__au_early(c) ((void)0)
#define mcp__poll_all(c, wait) ((void)0)
#define mcp__au_free(c) ((void)0)
MCPDEF mcp_status mcp_client_auth_redirect(mcp_client *c, const char *url, mcp_error *err)
{
    (void)c; (void)url;
    return mcp__fail(err, MCP_ERR_INVALID, "This mcp.h was built with MCP_NO_AUTH: there is no authorization flow.");
}
#endif

/* ---- >>client.connect  probe, initialize, fallback ------------------------------------------- */

static int mcp__version_known(const char *v)
{
    int i;
    for (i = 0; v && mcp__versions[i]; i++) if (!strcmp(v, mcp__versions[i])) return 1;
    return 0;
}

static int mcp__modern_known(const char *v)
{
    int i;
    for (i = 0; v && mcp__modern[i]; i++) if (!strcmp(v, mcp__modern[i])) return 1;
    return 0;
}

/* The first version of ours that a server's list names: modern ones, or else legacy ones. */
static const char *mcp__pick_version(const mcp_json *list, const char *const *ours)
{
    size_t i, j;
    for (i = 0; ours[i]; i++)
        for (j = 0; j < mcp_json_len(list); j++)
            if (mcp_json_str(mcp_json_at(list, j)) && !strcmp(mcp_json_str(mcp_json_at(list, j)), ours[i]))
                return ours[i];
    return NULL;
}

/* "2026-07-28, 2025-11-25" from a JSON array of strings */
static void mcp__list_text(const mcp_json *list, char *out, size_t n)
{
    size_t i, k = 0;
    out[0] = 0;
    for (i = 0; i < mcp_json_len(list) && k + 1 < n; i++) {
        const char *v = mcp_json_str(mcp_json_at(list, i));
        int w = snprintf(out + k, n - k, "%s%.40s", i ? ", " : "", v ? v : "?");
        if (w < 0) break;
        k += (size_t)w;
    }
    if (!out[0]) snprintf(out, n, "(none)");
}

static int mcp__modern_error(long code) { return code == -32020 || code == -32021 || code == -32022; }

/* The connect falls back to the legacy handshake: the same call, now an initialize. */
/* The connect's steps (the probe, initialize, a fallback) share the connect's timeout: a
   silent server is reported after timeout_ms in all, not after the probe's wait on top. */
static void mcp__connect_deadline(mcp_client *c, mcp_call *call)
{
    int64_t end = c->connect_at + call->timeout_ms;
    if (call->status != MCP_AGAIN || call->timeout_ms <= 0 || call->p.deadline <= end) return;
    call->p.deadline = end;
    mcp__call_due(&call->p);
    mcp__heap_update(&c->rpc, &call->p);
}

static void mcp__to_legacy(mcp_client *c, mcp_call *call)
{
    call->timeout_ms = c->d.timeout_ms;
    mcp__call_reissue(c, call, MCP__ROLE_INIT, "initialize", c->init_params, NULL, NULL);
    mcp__connect_deadline(c, call);
}

/* The answer to the server/discover probe decides the era (2026-07-28 versioning rules). */
static void mcp__probe_finish(mcp_client *c, mcp_call *call)
{
    int pinned = c->d.protocol_version != NULL, retried = call->rounds;
    long code = call->rpc_code;
    const mcp_json *r = mcp_json_root(call->doc), *sv, *data;
    const char *v, *mine[2];
    const char *const *want;
    char got[200];
    mine[0] = c->d.protocol_version; mine[1] = NULL;
    want = pinned ? mine : mcp__modern;
    if (call->status == MCP_OK && mcp_json_typeof(sv = mcp_json_get(r, "supportedVersions")) == MCP_JSON_ARRAY) {
        if ((v = mcp__pick_version(sv, want)) != NULL) {
            c->modern = 1;                               /* a modern server: no handshake */
            c->version = mcp__modern_known(v) ? v : c->d.protocol_version;
            if (mcp__build_meta(c, c->version) != MCP_OK) {      /* the call is over: restated */
                mcp__call_restate(call, MCP_ERR_NOMEM, "Out of memory connecting.");
                if (!MCP__GOING(c)) mcp__transport_down(c, MCP_ERR_NOMEM, "the connect failed");
                return;
            }
            c->init = call->doc; call->doc = NULL;
            if (c->state == MCP__CONNECTING) c->state = MCP__READY;
            if (c->tp->ready) c->tp->ready(c->t, c->version, 1);
            return;
        }
        if (!pinned && mcp__pick_version(sv, mcp__versions)) { mcp__to_legacy(c, call); return; }
        mcp__list_text(sv, got, sizeof got);
        mcp__call_restate(call, MCP_ERR_PROTOCOL, "The server supports protocol versions %s, and this client %s.",
                          got, pinned ? "was pinned to another" : "speaks none of them");
    } else if (call->status == MCP_OK) {
        if (!pinned) { mcp__to_legacy(c, call); return; }      /* not a DiscoverResult: legacy */
        mcp__call_restate(call, MCP_ERR_PROTOCOL, "The server's answer to server/discover is not a "
                          "DiscoverResult: it does not speak protocol version %s.", c->d.protocol_version);
    } else if (code == -32022 && (call->status == MCP_ERR_RPC || call->status == MCP_ERR_HTTP)) {
        /* modern, another version: use its list */
        data = mcp_json_get(mcp_json_root(call->errdoc), "data");
        sv = mcp_json_get(data, "supported");
        if (!retried && (v = mcp__pick_version(sv, want)) != NULL &&
            mcp__build_meta(c, v) == MCP_OK) {
            call->rounds = 1;
            call->timeout_ms = c->d.timeout_ms;
            mcp__call_reissue(c, call, MCP__ROLE_PROBE, NULL, NULL, NULL, NULL);
            mcp__connect_deadline(c, call);
            return;
        }
        if (!pinned && mcp__pick_version(sv, mcp__versions)) { mcp__to_legacy(c, call); return; }
        mcp__list_text(sv, got, sizeof got);
        mcp__call_restate(call, MCP_ERR_PROTOCOL, "The server does not support protocol version %s; it supports %s "
                          "(MCP error -32022).", pinned ? c->d.protocol_version : mcp__modern[0], got);
    } else if (mcp__modern_error(code) && (call->status == MCP_ERR_RPC || call->status == MCP_ERR_HTTP)) {
        /* modern, and the error stands */
    } else if (call->status == MCP_ERR_HTTP && call->http_status == 404 && code == -32601) {
        c->modern = 1;                                   /* modern, without server/discover */
        c->version = pinned ? c->d.protocol_version : mcp__modern[0];
        if (c->state == MCP__CONNECTING) c->state = MCP__READY;
        if (c->tp->ready) c->tp->ready(c->t, c->version, 1);
        mcp_json_free(call->doc); call->doc = NULL;
        mcp__call_clear(call); call->status = MCP_OK;
        return;
    } else if (call->status == MCP_ERR_HTTP && call->http_status >= 300 && call->http_status < 400) {
        /* a redirect not followed (too many, another origin, 301-303): initialize meets it too */
    } else if ((call->status == MCP_ERR_HTTP && (call->http_status == 401 || call->http_status == 403)) ||
               call->au_failed) {
        /* the server wants authorization (no desc.auth, or its flow failed): so would initialize */
    } else if (!pinned && (call->status == MCP_ERR_RPC || call->status == MCP_ERR_TIMEOUT ||
                           call->status == MCP_ERR_HTTP || call->status == MCP_ERR_PROTOCOL ||
                           call->status == MCP_ERR_PARSE)) {
        mcp__to_legacy(c, call);                         /* anything else: a legacy server */
        return;
    } else if (pinned && (call->status == MCP_ERR_RPC || call->status == MCP_ERR_TIMEOUT)) {
        char *was = call->msg;                           /* the message is rewritten */
        long rpc = call->rpc_code;
        call->msg = NULL;
        mcp__call_restate(call, call->status, "The server does not speak protocol version %s: server/discover "
                          "got %.300s", c->d.protocol_version, was ? was : "an error");
        call->rpc_code = rpc;
        MCP_FREE(was, NULL);
    }
    if (call->status == MCP_ERR_CLOSED && c->exited)
        mcp__call_restate(call, MCP_ERR_CLOSED, "Server %s during initialize%s%s", c->how,
                          c->quote[0] ? ": " : "", c->quote);
    if (!MCP__GOING(c)) mcp__transport_down(c, call->status, "the connect failed");
}

/* Streamable HTTP refused initialize (400, 404, 405 without a modern error): an HTTP+SSE
   server (2024-11-05) perhaps. The transport goes on as HTTP+SSE (the endpoint a redirect
   left, its addresses, its counters), and initialize goes again there. */
static int mcp__fall_back(mcp_client *c, mcp_call *call)
{
#ifndef MCP_NO_HTTP
    if (call->status != MCP_ERR_HTTP || !(c->tp->flags & MCP__TRANSPORT_FALLBACK) || c->tried_sse ||
        (c->d.protocol_version && strcmp(c->d.protocol_version, "2024-11-05")) ||
        (call->http_status != 400 && call->http_status != 404 && call->http_status != 405) ||
        mcp__modern_error(call->rpc_code))
        return 0;
    if (!mcp__ht_as_sse(c->t)) return 0;                 /* a session began: not an HTTP+SSE server */
    c->tried_sse = 1;
    c->d.transport = MCP_SSE;
    c->tp = &mcp__sse_transport;                         /* the same state, its HTTP+SSE table */
    snprintf(c->fallback, sizeof c->fallback, "POST answered %d", call->http_status);
    mcp__call_reissue(c, call, MCP__ROLE_INIT, NULL, NULL, NULL, NULL);     /* waits for the endpoint */
    mcp__connect_deadline(c, call);
    return 1;
#else
    (void)c; (void)call;
    return 0;
#endif
}

static void mcp__init_finish(mcp_client *c, mcp_call *call)
{
    const mcp_json *r;
    const char *v, *want = c->d.protocol_version ? c->d.protocol_version : mcp__versions[0];
    int reinit = call->role == MCP__ROLE_REINIT;
    if (call->role == MCP__ROLE_PROBE) { call->role = MCP__ROLE_CALL; mcp__probe_finish(c, call); return; }
    call->role = MCP__ROLE_CALL;
    if (reinit) {                                        /* a new session after a 404 */
        if (call->status == MCP_OK) mcp__notify_dom(c, "notifications/initialized", NULL, NULL);
        mcp__reinit_done(c, call->status == MCP_OK);
        mcp_call_free(call);                             /* the library's own call */
        return;
    }
    if (call->status == MCP_OK) {
        r = mcp_json_root(call->doc);
        v = mcp_json_str(mcp_json_get(r, "protocolVersion"));
        if (!mcp__version_known(v) || (c->d.protocol_version && strcmp(v, want))) {
            mcp__call_restate(call, MCP_ERR_PROTOCOL, "The server answered initialize with protocol version "
                              "\"%.40s\", but this client %s \"%s\"%s.", v ? v : "(none)",
                              c->d.protocol_version ? "was pinned to" : "asked for", want,
                              c->d.protocol_version ? "" : " and supports 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05");
            mcp_json_free(call->doc); call->doc = NULL;
            mcp__transport_down(c, MCP_ERR_PROTOCOL, "unsupported protocol version");
            return;
        }
        c->init = call->doc; call->doc = NULL;
        c->version = v;
        if (c->state == MCP__CONNECTING) c->state = MCP__READY;
        if (c->tp->ready) c->tp->ready(c->t, v, 0);     /* its header, the GET stream */
        mcp__notify_dom(c, "notifications/initialized", NULL, NULL);
        return;
    }
    if (mcp__fall_back(c, call)) return;
    if (call->status == MCP_ERR_CLOSED && c->exited)
        mcp__call_restate(call, MCP_ERR_CLOSED, "Server %s during initialize%s%s", c->how,
                          c->quote[0] ? ": " : "", c->quote);
    if (!MCP__GOING(c)) mcp__transport_down(c, call->status, "initialize failed");
}

/* The client's capabilities: from capabilities_json, or from the flags for what on_request
   answers. */
static void mcp__write_caps(mcp_client *c, mcp_jw *w, int modern)
{
    unsigned caps = c->d.on_request ? c->d.capabilities : 0;
    if (c->d.capabilities_json) { mcp_jw_raw(w, c->d.capabilities_json, strlen(c->d.capabilities_json)); return; }
    mcp_jw_obj_begin(w);
    if (caps & (MCP_CAP_ROOTS | MCP_CAP_ROOTS_LIST_CHANGED)) {
        mcp_jw_key(w, "roots"); mcp_jw_obj_begin(w);
        if (caps & MCP_CAP_ROOTS_LIST_CHANGED) { mcp_jw_key(w, "listChanged"); mcp_jw_bool(w, 1); }
        mcp_jw_obj_end(w);
    }
    if (caps & MCP_CAP_SAMPLING) { mcp_jw_key(w, "sampling"); mcp_jw_obj_begin(w); mcp_jw_obj_end(w); }
    if (caps & (MCP_CAP_ELICITATION | MCP_CAP_ELICITATION_URL)) {
        mcp_jw_key(w, "elicitation"); mcp_jw_obj_begin(w);
        if (caps & MCP_CAP_ELICITATION) { mcp_jw_key(w, "form"); mcp_jw_obj_begin(w); mcp_jw_obj_end(w); }
        if (caps & MCP_CAP_ELICITATION_URL) { mcp_jw_key(w, "url"); mcp_jw_obj_begin(w); mcp_jw_obj_end(w); }
        mcp_jw_obj_end(w);
    }
    if (modern && !c->d.no_tasks) {                      /* the server may answer with a task */
        mcp_jw_key(w, "extensions"); mcp_jw_obj_begin(w);
        mcp_jw_key(w, "io.modelcontextprotocol/tasks"); mcp_jw_obj_begin(w); mcp_jw_obj_end(w);
        mcp_jw_obj_end(w);
    }
    mcp_jw_obj_end(w);
}

static void mcp__write_client_info(mcp_client *c, mcp_jw *w)
{
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "name"); mcp_jw_str(w, c->d.client_name);
    mcp_jw_key(w, "version"); mcp_jw_str(w, c->d.client_version);
    mcp_jw_obj_end(w);
}

/* The _meta members of every 2026-07-28 request: version, capabilities, identity, and the
   log level if one was set. Kept as text (members, without the braces). */
static mcp_status mcp__build_meta(mcp_client *c, const char *version)
{
    mcp_jw w;
    char *t;
    size_t len;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "io.modelcontextprotocol/protocolVersion"); mcp_jw_str(&w, version);
    mcp_jw_key(&w, "io.modelcontextprotocol/clientCapabilities"); mcp__write_caps(c, &w, 1);
    mcp_jw_key(&w, "io.modelcontextprotocol/clientInfo"); mcp__write_client_info(c, &w);
    if (c->log_level) { mcp_jw_key(&w, "io.modelcontextprotocol/logLevel"); mcp_jw_str(&w, c->log_level); }
    mcp_jw_obj_end(&w);
    if (!(t = mcp_jw_finish(&w, &len, NULL))) return MCP_ERR_NOMEM;
    memmove(t, t + 1, len - 2);                          /* drop the braces */
    t[len - 2] = 0;
    mcp_free(c->meta);
    c->meta = t;
    c->meta_version = version;
    return MCP_OK;
}

MCPDEF mcp_call *mcp_client_connect_begin(mcp_client *c, mcp_error *err)
{
    mcp_jw w;
    mcp_call *call;
    mcp_call_opts probe;
    const char *pv;
    char *text;
    size_t len;
    int tmo;
    mcp_error local;
    if (!err) err = &local;
    if (!c) { mcp__fail(err, MCP_ERR_INVALID, "mcp_client_connect was given a NULL client."); return NULL; }
    if (c->state != MCP__NEW) { mcp__fail(err, MCP_ERR_INVALID, "mcp_client_connect was already called on this client."); return NULL; }
    if (!(c->t = c->tp->open(c->tp->user, c, &c->d, err))) {
        c->state = MCP__CLOSED;
        c->why = *err;
        return NULL;
    }
    c->state = MCP__CONNECTING;
    c->connect_at = mcp_time_ms();
#if !defined(MCP_NO_AUTH) && !defined(MCP_NO_HTTP)
    if (c->au && c->au->a.state == MCP__AU_DONE) mcp__au_give(c);    /* a token kept from before */
#endif
    pv = c->d.protocol_version;
    mcp_jw_init(&w, 0);                                  /* initialize's params, for a legacy server */
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "protocolVersion");
    mcp_jw_str(&w, pv && mcp__version_known(pv) ? pv : mcp__versions[0]);
    mcp_jw_key(&w, "capabilities"); mcp__write_caps(c, &w, 0);
    mcp_jw_key(&w, "clientInfo"); mcp__write_client_info(c, &w);
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, &len, err);
    c->init_params = text;                               /* kept: a new session needs it again */
    c->init_id = c->rpc.next_id + 1;
    if (!text) call = NULL;
    else if ((pv && mcp__version_known(pv)) || (c->tp->flags & MCP__TRANSPORT_LEGACY)) {   /* legacy only */
        call = mcp__start(c, "initialize", text, len, 0, NULL, MCP__ROLE_INIT, err);
    } else {
        /* 2026-07-28 first: server/discover tells a modern server (a result, or a modern
           error) from a legacy one (any other error, or silence for a short while) */
        memset(&probe, 0, sizeof probe);
        tmo = c->d.timeout_ms;
        probe.timeout_ms = pv ? tmo : tmo < 0 ? 3000 : tmo / 2 < 3000 ? tmo / 2 + 1 : 3000;
        call = mcp__build_meta(c, pv ? pv : mcp__modern[0]) == MCP_OK
             ? mcp__start(c, "server/discover", NULL, 0, 0, &probe, MCP__ROLE_PROBE, err) : NULL;
        if (!call && err->status == MCP_OK) mcp__fail(err, MCP_ERR_NOMEM, "Out of memory connecting.");
    }
    if (!call) { mcp__transport_down(c, err->status, "the connect could not start"); return NULL; }
    mcp__ok(err);
    return call;
}

MCPDEF mcp_status mcp_client_connect(mcp_client *c, mcp_error *err)
{
    mcp_error local;
    mcp_call *call;
    if (!err) err = &local;
    call = mcp_client_connect_begin(c, err);
    if (!call) { if (c) mcp__dispatch(c); return err->status; }
    if (mcp__wait_take(call, NULL, err) != MCP_OK) return err->status;
    if (c->tp->busy) {   /* over HTTP, let notifications/initialized be taken (and the GET stream
                            open) first: the next request then reuses the connection, and
                            nothing the server sends at once is lost */
        int64_t end = mcp_time_ms() + 2000;
        while (!MCP__GOING(c) && c->tp->busy(c->t) && mcp_time_ms() < end)
            mcp_client_poll(c, (int)(end - mcp_time_ms()));
    }
    return MCP_OK;
}

/* ---- >>client.object  create, close, poll, accessors ----------------------------------------- */

/* The description's defaults, settled once here: the rest of the client reads c->d as it is
   (sokol's _sg_desc_defaults). A negative timeout_ms stays: no timeout. */
#define MCP__TIMEOUT_MS 30000                 /* timeout_ms */
#define MCP__CLOSE_MS 2000                    /* close_timeout_ms */
#define MCP__CONNECT_MS 10000                 /* connect_timeout_ms */
#define MCP__MAX_MESSAGE MCP_JSONL_MAX_LINE   /* max_message, on every transport */
#define MCP__HTTP_CONNECTIONS 16              /* max_connections */
static void mcp__desc_defaults(mcp_client_desc *d)
{
    if (!d->timeout_ms) d->timeout_ms = MCP__TIMEOUT_MS;
    if (d->close_timeout_ms <= 0) d->close_timeout_ms = MCP__CLOSE_MS;
    if (d->connect_timeout_ms <= 0) d->connect_timeout_ms = MCP__CONNECT_MS;
    if (!d->max_message) d->max_message = MCP__MAX_MESSAGE;
    if (!d->max_queued) d->max_queued = MCP__OUT_MAX;
    if (d->max_connections <= 0) d->max_connections = MCP__HTTP_CONNECTIONS;
    d->cache_max = !d->cache_max ? MCP__CACHE_MAX : d->cache_max == MCP_CACHE_OFF ? 0 : d->cache_max;
    if (!d->client_name) d->client_name = "mcp.h";
    if (!d->client_version) d->client_version = MCP_VERSION;
}

/* The transport's operations for desc.transport (the one place the client asks which kind),
   once the transport has checked what it needs of the description. */
static const mcp_transport *mcp__transport_of(const mcp_client_desc *desc, mcp_error *err)
{
    const mcp_transport *t = desc->custom;
    if (desc->transport == MCP_CUSTOM) {
        if (t && t->open && t->send && t->pollfds && t->due && t->io && t->close && t->free) return t;
        mcp__fail(err, MCP_ERR_INVALID, "MCP_CUSTOM needs desc.custom, a transport with open, send, pollfds, "
                  "due, io, close and free.");
        return NULL;
    }
    if ((unsigned)desc->transport >= sizeof mcp__builtin / sizeof mcp__builtin[0]) {
        mcp__fail(err, MCP_ERR_INVALID, "desc.transport is not MCP_STDIO, MCP_HTTP, MCP_SSE or MCP_CUSTOM.");
        return NULL;
    }
    t = mcp__builtin[desc->transport].t;
    if (!t) mcp__fail(err, MCP_ERR_INVALID, "This build of mcp.h has %s.", mcp__builtin[desc->transport].missing);
    return t && mcp__builtin[desc->transport].check(desc, err) ? t : NULL;
}

MCPDEF mcp_client *mcp_client_new(const mcp_client_desc *desc, mcp_error *err)
{
    const mcp_transport *tp;
    mcp_client *c;
    mcp__cp cp;
    mcp_client_desc copy;
    mcp_json_doc *caps;
    if (!desc) { mcp__fail(err, MCP_ERR_INVALID, "mcp_client_new needs a description."); return NULL; }
    if (!(tp = mcp__transport_of(desc, err))) return NULL;
    if (desc->protocol_version && !mcp__version_known(desc->protocol_version) &&
        !mcp__modern_known(desc->protocol_version)) {
        mcp__fail(err, MCP_ERR_INVALID, "Protocol version \"%.40s\" is not one this client speaks "
                  "(2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).", desc->protocol_version);
        return NULL;
    }
    if (desc->protocol_version && mcp__modern_known(desc->protocol_version) && (tp->flags & MCP__TRANSPORT_LEGACY)) {
        mcp__fail(err, MCP_ERR_INVALID, "Protocol version %s does not run over the HTTP+SSE transport of "
                  "2024-11-05: use MCP_HTTP (Streamable HTTP) or stdio.", desc->protocol_version);
        return NULL;
    }
    if (desc->capabilities_json) {
        caps = mcp_json_parse(desc->capabilities_json, strlen(desc->capabilities_json), NULL);
        if (mcp_json_typeof(mcp_json_root(caps)) != MCP_JSON_OBJECT) {
            mcp_json_free(caps);
            mcp__fail(err, MCP_ERR_INVALID, "desc.capabilities_json is not a JSON object.");
            return NULL;
        }
        mcp_json_free(caps);
    }
    c = (mcp_client *)MCP_MALLOC(sizeof *c, NULL);
    if (c) {
        memset(c, 0, sizeof *c);
        copy = *desc;
        cp.base = NULL; cp.used = 0;
        mcp__cp_desc(&cp, desc, &copy);
        c->strings = (char *)MCP_MALLOC(cp.used ? cp.used : 1, NULL);
    }
    if (!c || !c->strings) {
        MCP_FREE(c, NULL);
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory creating a client.");
        return NULL;
    }
    c->d = *desc;
    cp.base = c->strings; cp.used = 0;
    mcp__cp_desc(&cp, desc, &c->d);
    mcp__desc_defaults(&c->d);
    c->tp = tp;
#if !defined(MCP_NO_AUTH) && !defined(MCP_NO_HTTP)
    if (mcp__au_new(c, err) != MCP_OK) { MCP_FREE(c->strings, NULL); MCP_FREE(c, NULL); return NULL; }
#else
    if (c->d.auth) {
        MCP_FREE(c->strings, NULL); MCP_FREE(c, NULL);
        mcp__fail(err, MCP_ERR_INVALID, "desc.auth is set, but this mcp.h was built without the authorization "
                  "layer (MCP_NO_AUTH or MCP_NO_HTTP).");
        return NULL;
    }
#endif
    mcp__ok(err);
    return c;
}

MCPDEF mcp_status mcp_client_close(mcp_client *c)
{
    if (!c) return MCP_ERR_INVALID;
    if (c->state == MCP__NEW) { c->state = MCP__CLOSED; return MCP_OK; }
    if (!MCP__GOING(c)) { c->user_closed = 1; mcp__transport_down(c, MCP_ERR_CLOSED, "%s", ""); }
    while (c->state == MCP__CLOSING) mcp__close_step(c, -1);          /* a close begun without blocking: finished */
    mcp__dispatch(c);
    return MCP_OK;
}

MCPDEF mcp_status mcp_client_close_begin(mcp_client *c)
{
    if (!c) return MCP_ERR_INVALID;
    if (c->state == MCP__NEW || c->state >= MCP__ENDED) return mcp_client_close(c);
    if (c->state != MCP__CLOSING) {
        c->user_closed = 1;
        c->close_async = 1;
        mcp__transport_down(c, MCP_ERR_CLOSED, "%s", "");   /* its first step, without waiting */
    } else {
        mcp__close_step(c, 0);
    }
    return c->state == MCP__CLOSING ? MCP_AGAIN : MCP_OK;
}

MCPDEF mcp_status mcp_client_close_now(mcp_client *c)
{
    if (!c) return MCP_ERR_INVALID;
    c->close_now = 1;
    return mcp_client_close(c);
}

MCPDEF void mcp_client_free(mcp_client *c)
{
    mcp_call *call, *cn;
    mcp__ev *e, *en;
    if (!c) return;
    mcp_client_close(c);                                 /* finishes a close begun without blocking */
    for (call = c->calls; call; call = cn) { cn = call->next; call->c = NULL; call->next = call->prev = NULL; }
    while (c->reqs) {
        mcp_request *r = c->reqs;
        c->reqs = r->next;
        mcp_json_free(r->doc);
        if (r->mrtr) mcp__mrtr_release(r->mrtr);
        MCP_FREE(r, NULL);
    }
    for (e = c->qhead; e; e = en) { en = e->next; mcp_json_free(e->doc); MCP_FREE(e, NULL); }
    mcp__rpc_free(&c->rpc);
    mcp_json_free(c->init);
    mcp_free(c->init_params);
    mcp_free(c->meta);
    MCP_FREE(c->log_level, NULL);
    mcp_jw_free(&c->w);
    mcp_json_free(c->xhdr);
    mcp_buf_free(&c->task_tools);
    mcp__cache_free(c);
    if (c->t) c->tp->free(c->t);
    mcp__au_free(c);
    MCP_FREE(c->strings, NULL);
    MCP_FREE(c, NULL);
}

MCPDEF mcp_status mcp_client_poll(mcp_client *c, int timeout_ms)
{
    int wait = timeout_ms, nt;
    if (!c) return MCP_ERR_INVALID;
    mcp__au_early(c);
    mcp__dispatch(c);
    mcp__expire(c, mcp_time_ms());
    mcp__dispatch(c);
    if (c->state == MCP__CLOSED) return MCP_ERR_CLOSED;
    if (c->state == MCP__NEW) return MCP_OK;
    if (c->state == MCP__CLOSING) {                      /* mcp_client_close_begin */
        nt = mcp_client_next_timeout(c);
        mcp__close_step(c, nt >= 0 && (wait < 0 || nt < wait) ? nt : wait);
    } else if (!MCP__GOING(c)) {
        nt = mcp_client_next_timeout(c);
        if (nt >= 0 && (wait < 0 || nt < wait)) wait = nt;
        if (mcp__au_waits(c)) {                          /* the flow's descriptors too: one wait */
            mcp__poll_all(c, wait);
            c->tp->io(c->t, 0);
            mcp__au_io(c);
        } else c->tp->io(c->t, wait);
    }
    mcp__dispatch(c);
    mcp__expire(c, mcp_time_ms());
    mcp__dispatch(c);
    return c->state == MCP__CLOSED ? MCP_ERR_CLOSED : MCP_OK;
}

/* The descriptors to watch, at most max of them; fds NULL: how many there are. */
static int mcp__pollfds(const mcp_client *c, mcp_pollfd *fds, int max)
{
    int n;
    if (!c || !c->t || c->state >= MCP__ENDED) return 0;
    n = c->tp->pollfds(c->t, fds, max);
    return mcp__au_pollfds(c, fds, n, max);
}

MCPDEF int mcp_client_pollfds(const mcp_client *c, mcp_pollfd *fds, int max)
{
    return fds ? mcp__pollfds(c, fds, max) : 0;
}

MCPDEF int mcp_client_pollfd_count(const mcp_client *c) { return mcp__pollfds(c, NULL, 0x7FFFFFFF); }

MCPDEF long mcp_client_pid(const mcp_client *c)
{
    return c && c->t && c->tp->pid ? c->tp->pid(c->t) : 0;
}

MCPDEF int mcp_client_next_timeout(const mcp_client *c)
{
    int64_t due = -1, left, t;
    if (!c) return -1;
    if (c->qhead) return 0;
    if (c->rpc.nheap) due = c->rpc.heap[0]->due;
    if (c->t && c->state < MCP__ENDED && (t = c->tp->due(c->t)) >= 0 && (due < 0 || t < due)) due = t;
    if ((t = mcp__au_due(c)) >= 0 && (due < 0 || t < due)) due = t;
    if (due < 0) return -1;
    left = due - mcp_time_ms();
    return left <= 0 ? 0 : left > 0x7FFFFFFF ? 0x7FFFFFFF : (int)left;
}

MCPDEF void mcp_client_get_stats(const mcp_client *c, mcp_client_stats *out)
{
    if (!out) return;
    if (c) *out = c->stats; else memset(out, 0, sizeof *out);
    if (c && c->t && c->tp->stats) c->tp->stats(c->t, out);
}

MCPDEF const char *mcp_client_protocol_version(const mcp_client *c) { return c ? c->version : NULL; }

MCPDEF mcp_transport_kind mcp_client_transport(const mcp_client *c, const char **fallback)
{
    if (fallback) *fallback = NULL;
    if (!c) return MCP_STDIO;
    if (fallback && c->fallback[0]) *fallback = c->fallback;
    return c->d.transport;
}
MCPDEF const mcp_json *mcp_client_server_info(const mcp_client *c)
{
    if (c && c->modern)                                  /* server/discover: in _meta */
        return mcp_json_get(mcp_json_get(mcp_json_root(c->init), "_meta"), "io.modelcontextprotocol/serverInfo");
    return c ? mcp_json_get(mcp_json_root(c->init), "serverInfo") : NULL;
}
MCPDEF const mcp_json *mcp_client_server_capabilities(const mcp_client *c)
{
    return c ? mcp_json_get(mcp_json_root(c->init), "capabilities") : NULL;
}
MCPDEF const char *mcp_client_instructions(const mcp_client *c)
{
    return c ? mcp_json_str(mcp_json_get(mcp_json_root(c->init), "instructions")) : NULL;
}

/* ---- >>client.typed  the blocking and typed calls -------------------------------------------- */

MCPDEF mcp_status mcp_client_request(mcp_client *c, const char *method, const char *params_json,
                                     mcp_json_doc **result, mcp_error *err)
{
    mcp_error local;
    mcp_call *call;
    if (result) *result = NULL;
    if (!err) err = &local;
    call = mcp_client_send(c, method, params_json, NULL, err);
    return call ? mcp__wait_take(call, result, err) : err->status;
}

MCPDEF mcp_status mcp_client_notify(mcp_client *c, const char *method, const char *params_json, mcp_error *err)
{
    mcp_json_doc *pd;
    mcp_status st;
    if (!c || !method) return mcp__fail(err, MCP_ERR_INVALID, "mcp_client_notify needs a client and a method.");
    if (MCP__GOING(c)) return mcp__fail_closed(err);
    if (c->state == MCP__NEW) return mcp__fail(err, MCP_ERR_INVALID, "The client is not connected yet: call mcp_client_connect first.");
    if ((st = mcp__parse_params(params_json, 0, &pd, err)) != MCP_OK) return st;
    st = mcp__notify_dom(c, method, mcp_json_root(pd), err);
    mcp_json_free(pd);
    if (st == MCP_OK) mcp__ok(err);
    return st;
}

/* Writes {"k1": v1 [, "k2": raw2] }, the typed calls' params; raw2 is JSON text (checked). */
static mcp_status mcp__write_kv(mcp_jw *w, const char *k1, const char *v1, const char *k2, const char *raw2,
                                mcp_error *err)
{
    int raw_bad = 0;
    mcp_jw_obj_begin(w);
    if (k1) { mcp_jw_key(w, k1); mcp_jw_str(w, v1); }
    if (k2 && raw2 && w->status == MCP_OK) {
        mcp_jw_key(w, k2);
        raw_bad = mcp__jw_raw_checked(w, raw2, strlen(raw2)) == MCP_ERR_INVALID;
    }
    mcp_jw_obj_end(w);
    if (w->status == MCP_OK) return MCP_OK;
    if (raw_bad) return mcp__fail(err, MCP_ERR_INVALID, "The %s are not valid JSON.", k2);
    return mcp__fail(err, w->status, "JSON writer error: %s.", w->what ? w->what : "unknown");
}

/* The same, as malloc'ed text. */
static char *mcp__params(const char *k1, const char *v1, const char *k2, const char *raw2, size_t *len,
                         mcp_error *err)
{
    mcp_jw w;
    mcp_jw_init(&w, 0);
    if (mcp__write_kv(&w, k1, v1, k2, raw2, err) != MCP_OK) { mcp_jw_free(&w); return NULL; }
    return mcp_jw_finish(&w, len, err);
}

/* Starts a typed call (the caller has asked mcp__can_send): the params are written straight
   after the request's head, not built apart and copied in. */
static mcp_call *mcp__start_kv(mcp_client *c, const char *method, const char *k1, const char *v1,
                               const char *k2, const char *raw2, const mcp_call_opts *o, mcp_error *err)
{
    size_t at;
    mcp_call *call;
    mcp__ckey *ck;
    mcp__msg_head(c, c->rpc.next_id + 1, method);      /* mcp__start gives the call that id */
    MCP__KEY(&c->w, "\"params\":");
    at = c->w.len;
    if (mcp__write_kv(&c->w, k1, v1, k2, raw2, err) != MCP_OK) return NULL;
    if ((call = mcp__cache_begin(c, method, c->w.buf + at, c->w.len - at, o, &ck)) != NULL) { mcp__ok(err); return call; }
    call = mcp__start(c, method, c->w.buf + at, c->w.len - at, MCP__BUILT, o, MCP__ROLE_CALL, err);
    mcp__cache_attach(call, ck);
    if (call) mcp__ok(err);
    return call;
}

/* A blocking typed call. */
static mcp_status mcp__request_kv(mcp_client *c, const char *method, const char *k1, const char *v1,
                                  const char *k2, const char *raw2, mcp_json_doc **result, mcp_error *err)
{
    mcp_call *call;
    if (result) *result = NULL;
    if (mcp__can_send(c, method, err) != MCP_OK) return err->status;
    call = mcp__start_kv(c, method, k1, v1, k2, raw2, NULL, err);
    return call ? mcp__wait_take(call, result, err) : err->status;
}

/* params: built by the caller with err (so err is never NULL here) */
static mcp_status mcp__request_params(mcp_client *c, const char *method, char *params,
                                      mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    if (!params) { if (result) *result = NULL; return err->status; }
    st = mcp_client_request(c, method, params, result, err);
    mcp_free(params);
    return st;
}

MCPDEF mcp_call *mcp_client_send_tool(mcp_client *c, const char *name, const char *args_json,
                                      const mcp_call_opts *opts, mcp_error *err)
{
    if (!name) { mcp__fail(err, MCP_ERR_INVALID, "A tool call needs the tool's name."); return NULL; }
    if (mcp__can_send(c, "tools/call", err) != MCP_OK) return NULL;
    if (mcp__tasks_tools(c)) {                           /* maybe a task: through the params' check */
        mcp_jw w;
        char *params;
        mcp_call *call;
        mcp_jw_init(&w, 0);
        if (mcp__write_kv(&w, "name", name, "arguments", args_json, err) != MCP_OK) { mcp_jw_free(&w); return NULL; }
        if (!(params = mcp_jw_finish(&w, NULL, err))) return NULL;
        call = mcp_client_send(c, "tools/call", params, opts, err);
        mcp_free(params);
        return call;
    }
    return mcp__start_kv(c, "tools/call", "name", name, "arguments", args_json, opts, err);
}

MCPDEF mcp_call *mcp_client_listen(mcp_client *c, const char *notifications_json, const mcp_call_opts *opts,
                                   mcp_error *err)
{
    mcp_call_opts o;
    mcp_error local;
    if (!err) err = &local;
    if (mcp__can_send(c, "subscriptions/listen", err) != MCP_OK) return NULL;
    if (!c->modern) {
        mcp__fail(err, MCP_ERR_INVALID, "subscriptions/listen exists in protocol version 2026-07-28 only; this "
                  "connection speaks %s: use mcp_client_subscribe (and the GET stream) instead.", c->version);
        return NULL;
    }
    if (opts) o = *opts; else memset(&o, 0, sizeof o);
    if (!o.timeout_ms) o.timeout_ms = -1;                /* a stream: open until cancelled */
    return mcp__start_kv(c, "subscriptions/listen", NULL, NULL, "notifications",
                         notifications_json ? notifications_json : "{}", &o, err);
}

MCPDEF mcp_status mcp_client_call_tool(mcp_client *c, const char *name, const char *args_json,
                                      mcp_json_doc **result, mcp_error *err)
{
    mcp_error local;
    mcp_call *call;
    if (result) *result = NULL;
    if (!err) err = &local;
    call = mcp_client_send_tool(c, name, args_json, NULL, err);
    return call ? mcp__wait_take(call, result, err) : err->status;
}

/* The merged list (again) from its start: {"<key>": [, and no x-mcp-header markings yet. */
static void mcp__list_begin(mcp_jw *out, mcp_jw *specs, const char *key, int xhdr)
{
    mcp_jw_reset(out); mcp_jw_reset(specs);
    mcp_jw_obj_begin(out); mcp_jw_key(out, key); mcp_jw_arr_begin(out);
    if (xhdr) mcp_jw_obj_begin(specs);
}

/* Every page of a list method, merged: {"<key>": [...]}. Pages kept fresh in the cache are
   taken from it, each by its cursor; one whose kept cursor the server now refuses (an error)
   means the kept pages are out of date: they are dropped and the list read from its start,
   once (caching.mdx, pagination). */
static mcp_status mcp__list_all(mcp_client *c, const char *method, const char *key,
                                mcp_json_doc **result, mcp_error *err)
{
    mcp_jw out;
    mcp_json_doc *page = NULL;
    char *cursor = NULL, *params, *text;
    const char *next;
    size_t i, pages, len;
    const mcp_json *items;
    mcp_status st = MCP_OK;
    mcp_error local;
    int on, kept = 0, again = 0;                         /* kept: the cursor is from a kept page */
    uint64_t hits;
    mcp_jw specs;
    int xhdr = c && c->modern && (c->tp->flags & MCP_TRANSPORT_HTTP) && !strcmp(method, "tools/list");
    mcp_jw_init(&specs, 0);
    mcp_jw_init(&out, 0);
    mcp__list_begin(&out, &specs, key, xhdr);
    if (!err) err = &local;
    if (result) *result = NULL;
    for (pages = 0; ; pages++) {
        params = cursor ? mcp__params("cursor", cursor, NULL, NULL, NULL, err) : NULL;
        if (cursor && !params) { st = err->status; break; }
        hits = c ? c->stats.cache_hits : 0;
        st = mcp_client_request(c, method, params, &page, err);
        mcp_free(params);
        if (kept && !again && (st == MCP_ERR_RPC || (st == MCP_ERR_HTTP && err->rpc_code))) {
            again = 1; kept = 0;
            mcp__cache_drop(c, method, NULL, 0);
            mcp__list_begin(&out, &specs, key, xhdr);
            mcp_free(cursor); cursor = NULL;
            pages = (size_t)-1;                          /* the loop makes it 0 */
            continue;
        }
        if (st != MCP_OK) break;
        kept = c->stats.cache_hits != hits;
        items = mcp_json_get(mcp_json_root(page), key);
        for (i = 0; i < mcp_json_len(items); i++) {
            if (xhdr && !mcp__xhdr_tool(c, mcp_json_at(items, i), &specs)) continue;
            mcp_jw_value(&out, mcp_json_at(items, i));
        }
        next = mcp_json_str(mcp_json_get(mcp_json_root(page), "nextCursor"));
        if ((on = mcp__page_on(method, cursor, next, pages, err)) <= 0) { if (on < 0) st = err->status; break; }
        mcp_free(cursor);
        if (!(cursor = mcp__strdup(next))) { st = mcp__fail(err, MCP_ERR_NOMEM, "Out of memory listing."); break; }
        mcp_json_free(page); page = NULL;
    }
    mcp_json_free(page);
    mcp_free(cursor);
    mcp_jw_arr_end(&out); mcp_jw_obj_end(&out);
    if (xhdr && st == MCP_OK) mcp__xhdr_keep(c, &specs);   /* the markings, for tools/call */
    mcp_jw_free(&specs);
    if (xhdr) mcp__dispatch(c);                          /* the drop warnings, before we return */
    if (st != MCP_OK) { mcp_jw_free(&out); return st; }
    text = mcp_jw_finish(&out, &len, err);
    if (!text) return err->status;
    if (result && !(*result = mcp_json_parse(text, len, err))) st = err->status;
    mcp_free(text);
    if (st == MCP_OK) mcp__ok(err);
    return st;
}

MCPDEF mcp_status mcp_client_list_tools(mcp_client *c, mcp_json_doc **result, mcp_error *err)
{ return mcp__list_all(c, "tools/list", "tools", result, err); }
MCPDEF mcp_status mcp_client_list_tasks(mcp_client *c, mcp_json_doc **result, mcp_error *err)
{
    if (result) *result = NULL;
    if (c && c->modern)
        return mcp__fail(err, MCP_ERR_INVALID, "tasks/list is not part of 2026-07-28's tasks extension: a task "
                         "is followed by its id (mcp_client_attach_task).");
    if (c && c->init && !mcp_json_get(mcp_json_get(mcp_client_server_capabilities(c), "tasks"), "list"))
        return mcp__fail(err, MCP_ERR_INVALID, "The server did not declare \"tasks\": {\"list\": {}}, so it does "
                         "not support tasks/list.");
    return mcp__list_all(c, "tasks/list", "tasks", result, err);
}
MCPDEF mcp_status mcp_client_list_resources(mcp_client *c, mcp_json_doc **result, mcp_error *err)
{ return mcp__list_all(c, "resources/list", "resources", result, err); }
MCPDEF mcp_status mcp_client_list_resource_templates(mcp_client *c, mcp_json_doc **result, mcp_error *err)
{ return mcp__list_all(c, "resources/templates/list", "resourceTemplates", result, err); }
MCPDEF mcp_status mcp_client_list_prompts(mcp_client *c, mcp_json_doc **result, mcp_error *err)
{ return mcp__list_all(c, "prompts/list", "prompts", result, err); }

MCPDEF mcp_status mcp_client_read_resource(mcp_client *c, const char *uri, mcp_json_doc **result, mcp_error *err)
{
    mcp_error local;
    if (!err) err = &local;
    if (!uri) return mcp__fail(err, MCP_ERR_INVALID, "resources/read needs a URI.");
    return mcp__request_kv(c, "resources/read", "uri", uri, NULL, NULL, result, err);
}

/* 2026-07-28 replaced resources/subscribe with subscriptions/listen */
static mcp_status mcp__not_modern(mcp_client *c, const char *method, mcp_error *err)
{
    if (!c || !c->modern) return MCP_OK;
    return mcp__fail(err, MCP_ERR_INVALID, "%s does not exist in protocol version %s: subscriptions/listen "
                     "replaces it (mcp_client_listen).", method, c->version);
}

MCPDEF mcp_status mcp_client_subscribe(mcp_client *c, const char *uri, mcp_error *err)
{
    mcp_error local;
    if (!err) err = &local;
    if (mcp__not_modern(c, "resources/subscribe", err) != MCP_OK) return err->status;
    if (!uri) return mcp__fail(err, MCP_ERR_INVALID, "resources/subscribe needs a URI.");
    return mcp__request_kv(c, "resources/subscribe", "uri", uri, NULL, NULL, NULL, err);
}

MCPDEF mcp_status mcp_client_unsubscribe(mcp_client *c, const char *uri, mcp_error *err)
{
    mcp_error local;
    if (!err) err = &local;
    if (mcp__not_modern(c, "resources/unsubscribe", err) != MCP_OK) return err->status;
    if (!uri) return mcp__fail(err, MCP_ERR_INVALID, "resources/unsubscribe needs a URI.");
    return mcp__request_kv(c, "resources/unsubscribe", "uri", uri, NULL, NULL, NULL, err);
}

MCPDEF mcp_status mcp_client_get_prompt(mcp_client *c, const char *name, const char *args_json,
                                        mcp_json_doc **result, mcp_error *err)
{
    mcp_error local;
    if (!err) err = &local;
    if (!name) return mcp__fail(err, MCP_ERR_INVALID, "prompts/get needs the prompt's name.");
    return mcp__request_kv(c, "prompts/get", "name", name, "arguments", args_json, result, err);
}

MCPDEF mcp_status mcp_client_complete(mcp_client *c, const char *ref_json, const char *arg_name,
                                      const char *arg_value, const char *context_json,
                                      mcp_json_doc **result, mcp_error *err)
{
    mcp_jw w;
    char *p;
    mcp_error local;
    if (!err) err = &local;
    if (!ref_json || !arg_name) return mcp__fail(err, MCP_ERR_INVALID, "completion/complete needs a ref and an argument name.");
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "ref"); mcp_jw_raw(&w, ref_json, strlen(ref_json));
    mcp_jw_key(&w, "argument"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, arg_name);
    mcp_jw_key(&w, "value"); mcp_jw_str(&w, arg_value ? arg_value : "");
    mcp_jw_obj_end(&w);
    if (context_json) { mcp_jw_key(&w, "context"); mcp_jw_raw(&w, context_json, strlen(context_json)); }
    mcp_jw_obj_end(&w);
    p = mcp_jw_finish(&w, NULL, err);
    return mcp__request_params(c, "completion/complete", p, result, err);
}

MCPDEF mcp_status mcp_client_set_log_level(mcp_client *c, const char *level, mcp_error *err)
{
    mcp_error local;
    size_t n;
    if (!err) err = &local;
    if (c && c->modern && level) {                       /* 2026-07-28: a _meta member per request */
        if (mcp__check_cap(c, "logging/setLevel", err) != MCP_OK) return err->status;
        n = strlen(level);
        MCP_FREE(c->log_level, NULL);
        if (!(c->log_level = (char *)MCP_MALLOC(n + 1, NULL))) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
        memcpy(c->log_level, level, n + 1);
        if (mcp__build_meta(c, c->version) != MCP_OK) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
        mcp__ok(err);
        return MCP_OK;
    }
    if (!level) return mcp__fail(err, MCP_ERR_INVALID, "logging/setLevel needs a level.");
    return mcp__request_kv(c, "logging/setLevel", "level", level, NULL, NULL, NULL, err);
}

MCPDEF mcp_status mcp_client_ping(mcp_client *c, mcp_error *err)
{
    /* 2026-07-28 has no ping: server/discover is the cheapest question with an answer, asked
       of the server itself, never of a kept answer */
    mcp_call_opts o;
    mcp_call *call;
    mcp_error local;
    if (!err) err = &local;
    memset(&o, 0, sizeof o);
    o.no_cache = 1;
    call = mcp_client_send(c, c && c->modern ? "server/discover" : "ping", NULL, &o, err);
    return call ? mcp__wait_take(call, NULL, err) : err->status;
}

#ifndef MCP_NO_HOST
/* ============================================================================================
   >>host
   ============================================================================================
   Above the client, using only its public API (and mcp_poll, one wait for many clients).
   Its own I/O is its config and cache files, through <stdio.h>. */

/* ---- >>host.config ------------------------------------------------------------------------ */

/* A config file is read as JSON with comments into a document. The document has no
   positions, so a scanner walks the text beside it, member for member in file order, for
   the byte offsets that messages give as file:line:col. Every walk goes forward and stops at
   the end of the text: a file costs a few passes over its bytes, whatever it holds. */

#define MCP__CFG_MAX_SIZE ((size_t)4 << 20)   /* mcp_config_opts.max_size's default */
#define MCP__CFG_NOTES 100                    /* notes of one parse; then one saying so */
#define MCP__CFG_SHOWN 80                     /* bytes of a name quoted in a sentence */
#define MCP__CFG_NONE ((size_t)-1)

/* ---- the scanner: offsets in JSON-with-comments text. Each function takes the text t[0..n)
   and an offset, and returns an offset, never beyond n. The text was parsed already, but
   nothing here relies on it being valid. */

static size_t mcp__sc_ws(const char *t, size_t n, size_t at)   /* past whitespace, comments */
{
    while (at < n) {
        char ch = t[at];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            at++;
        } else if (ch == '/' && at + 1 < n && t[at + 1] == '/') {
            for (at += 2; at < n && t[at] != '\n' && t[at] != '\r'; at++) {}
        } else if (ch == '/' && at + 1 < n && t[at + 1] == '*') {
            for (at += 2; at + 1 < n && !(t[at] == '*' && t[at + 1] == '/'); at++) {}
            at = at + 1 < n ? at + 2 : n;
        } else {
            break;
        }
    }
    return at;
}

static size_t mcp__sc_str(const char *t, size_t n, size_t at)  /* on '"': past the closing one */
{
    for (at++; at < n; at++) {
        if (t[at] == '\\') at++;
        else if (t[at] == '"') return at + 1;
    }
    return n;
}

/* Past the value at `at`, a container with everything in it (no recursion: a depth count). */
static size_t mcp__sc_value(const char *t, size_t n, size_t at)
{
    size_t depth = 0, w;
    if (at >= n) return n;
    if (t[at] == '"') return mcp__sc_str(t, n, at);
    if (t[at] != '{' && t[at] != '[') {                       /* a number or a literal */
        while (at < n && t[at] != ',' && t[at] != ']' && t[at] != '}' && t[at] != '/' &&
               t[at] != ' ' && t[at] != '\t' && t[at] != '\n' && t[at] != '\r') at++;
        return at;
    }
    while (at < n) {
        char ch = t[at];
        if (ch == '"') { at = mcp__sc_str(t, n, at); continue; }
        if (ch == '/') { w = mcp__sc_ws(t, n, at); at = w > at ? w : at + 1; continue; }
        at++;
        if (ch == '{' || ch == '[') depth++;
        else if ((ch == '}' || ch == ']') && --depth == 0) return at;
    }
    return n;
}

/* A cursor over the members of an object or the items of an array. */
typedef struct mcp__sc { const char *t; size_t n, at; int obj; } mcp__sc;

static void mcp__sc_open(mcp__sc *c, const char *t, size_t n, size_t at)  /* at its '{' or '[' */
{
    c->t = t; c->n = n; c->obj = at < n && t[at] == '{';
    c->at = at < n && (t[at] == '{' || t[at] == '[') ? at + 1 : n;
}

/* The next member (*key: its key's offset) or item; *val: the value's offset. 0 after the
   last, and then always (*key and *val are left alone). */
static int mcp__sc_next(mcp__sc *c, size_t *key, size_t *val)
{
    const char *t = c->t;
    size_t n = c->n, at = mcp__sc_ws(t, n, c->at), k;
    if (at < n && t[at] == ',') at = mcp__sc_ws(t, n, at + 1);
    if (at >= n || t[at] == '}' || t[at] == ']') { c->at = n; return 0; }
    k = at;
    if (c->obj) {
        if (t[at] != '"') { c->at = n; return 0; }
        at = mcp__sc_ws(t, n, mcp__sc_str(t, n, at));
        if (at >= n || t[at] != ':') { c->at = n; return 0; }
        at = mcp__sc_ws(t, n, at + 1);
    }
    *key = k; *val = at;
    c->at = mcp__sc_value(t, n, at);
    return 1;
}

/* ---- one parse: the text, the options, the messages -------------------------------------- */

typedef struct mcp__cfgrun {
    const char *t; size_t n;             /* the text, after a byte order mark */
    const char *file;                    /* for sentences: as given, or "<config>" */
    const char *given;                   /* as given (mcp_server_config.file) */
    const mcp_config_opts *o;
    size_t bound;                        /* bytes of one entry's strings, variables expanded */
    size_t lc_at, lc_line, lc_start;     /* line:col cursor: an offset, its line, the line's start */
    int notes;                           /* notes given so far */
    int nomem;
    mcp_buf noted;                       /* what was noted once: a size_t length, then the bytes */
    mcp_buf tmp;                         /* a variable's name, NUL-ended */
    mcp_buf ptrs;                        /* an entry's args, env and headers arrays */
    char msg[1024];
} mcp__cfgrun;

/* One server entry while it is read. Its strings go to s, NUL-ended, at offsets kept until
   the entry is complete (s moves as it grows). */
typedef struct mcp__cfgent {
    const char *name;
    char pre[MCP__CFG_SHOWN + 24];       /* server "name": */
    size_t name_at, type_at;             /* offsets in the text */
    mcp_buf s;
    mcp_buf args, env, headers;          /* offsets into s, a size_t each */
    size_t command, cwd, url;            /* offsets into s, or MCP__CFG_NONE */
    int type;                            /* the transport; -1: not given */
    int disabled, timeout_ms, bad;
    char error[1024];
} mcp__cfgent;

/* Line and column (bytes), from 1, of offset at. Moving forward is what a parse does; a step
   back re-finds the start of the line. */
static void mcp__cfg_lc(mcp__cfgrun *r, size_t at, unsigned long *line, unsigned long *col)
{
    if (at > r->n) at = r->n;
    if (at < r->lc_start) {
        while (r->lc_at > at) if (r->t[--r->lc_at] == '\n') r->lc_line--;
        for (r->lc_start = at; r->lc_start > 0 && r->t[r->lc_start - 1] != '\n'; r->lc_start--) {}
    }
    for (; r->lc_at < at; r->lc_at++)
        if (r->t[r->lc_at] == '\n') { r->lc_line++; r->lc_start = r->lc_at + 1; }
    r->lc_at = at;
    *line = (unsigned long)r->lc_line;
    *col = (unsigned long)(at - r->lc_start + 1);
}

/* s[0..n) as a sentence quotes it: at most MCP__CFG_SHOWN bytes, cut between characters
   (then "..."), control characters as '?'. out holds MCP__CFG_SHOWN + 4 bytes. */
static void mcp__cfg_shown(const char *s, size_t n, char *out)
{
    size_t i, k = n > MCP__CFG_SHOWN ? MCP__CFG_SHOWN : n;
    if (k < n) while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    for (i = 0; i < k; i++) out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    if (k < n) { memcpy(out + k, "...", 3); k += 3; }
    out[k] = 0;
}

static void mcp__cfg_vsay(mcp__cfgrun *r, char *out, size_t cap, size_t at, const char *pre,
                          const char *fmt, va_list ap)
{
    unsigned long line, col;
    int k;
    mcp__cfg_lc(r, at, &line, &col);
    k = snprintf(out, cap, "%s:%lu:%lu: %s", r->file, line, col, pre);
    if (k >= 0 && (size_t)k < cap) vsnprintf(out + k, cap - (size_t)k, fmt, ap);
}

static void mcp__cfg_log(mcp__cfgrun *r, const char *msg)
{
    if (r->o->on_log) r->o->on_log(r->o->user, msg);
}

/* Whether a note about key (kind: 'f' a field, 'v' a variable) may still be given: not given
   before in this parse, and under the cap. Records it. */
static int mcp__cfg_once(mcp__cfgrun *r, char kind, const char *key, size_t len)
{
    size_t at = 0, l;
    if (!r->o->on_log || r->notes > MCP__CFG_NOTES) return 0;
    while (at < r->noted.len) {
        memcpy(&l, r->noted.data + at, sizeof l);
        if (l == len + 1 && r->noted.data[at + sizeof l] == kind &&
            !memcmp(r->noted.data + at + sizeof l + 1, key, len)) return 0;
        at += sizeof l + l;
    }
    l = len + 1;
    if (mcp_buf_append(&r->noted, &l, sizeof l) != MCP_OK || mcp_buf_append(&r->noted, &kind, 1) != MCP_OK ||
        mcp_buf_append(&r->noted, key, len) != MCP_OK) { r->nomem = 1; return 0; }
    return 1;
}

/* A note (on_log): what was read and ignored. At most MCP__CFG_NOTES of them, then one more
   saying that the rest are left out. e: the entry it is about, or NULL. */
static void mcp__cfg_note(mcp__cfgrun *r, const mcp__cfgent *e, size_t at, const char *fmt, ...)
    MCP__PRINTF(4, 5);
static void mcp__cfg_note(mcp__cfgrun *r, const mcp__cfgent *e, size_t at, const char *fmt, ...)
{
    va_list ap;
    if (!r->o->on_log || r->notes > MCP__CFG_NOTES) return;
    if (r->notes++ == MCP__CFG_NOTES) {
        snprintf(r->msg, sizeof r->msg, "%s: more notes about this file are left out (%d were "
                 "given).", r->file, MCP__CFG_NOTES);
    } else {
        va_start(ap, fmt);
        mcp__cfg_vsay(r, r->msg, sizeof r->msg, at, e ? e->pre : "", fmt, ap);
        va_end(ap);
    }
    mcp__cfg_log(r, r->msg);
}

/* The entry is bad: its first error (in file order) is the one it keeps. Returns 0. */
static int mcp__cfg_bad(mcp__cfgrun *r, mcp__cfgent *e, size_t at, const char *fmt, ...)
    MCP__PRINTF(4, 5);
static int mcp__cfg_bad(mcp__cfgrun *r, mcp__cfgent *e, size_t at, const char *fmt, ...)
{
    va_list ap;
    if (e->bad) return 0;
    e->bad = 1;
    va_start(ap, fmt);
    mcp__cfg_vsay(r, e->error, sizeof e->error, at, e->pre, fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- variables ---------------------------------------------------------------------------- */

static size_t mcp__cfg_envname(const char *s, size_t n)   /* [A-Za-z_][A-Za-z0-9_]* prefix */
{
    size_t i = 0;
    while (i < n && (s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
                     (i > 0 && s[i] >= '0' && s[i] <= '9'))) i++;
    return i;
}

/* The offset in the text of byte k of the string whose opening quote is at q (escapes
   decoded as the parser did). */
static size_t mcp__cfg_raw(const mcp__cfgrun *r, size_t q, size_t k)
{
    const char *t = r->t;
    size_t n = r->n, p = q + 1, raw, out;
    unsigned cp;
    while (k > 0 && p < n && t[p] != '"') {
        raw = out = 1;
        if (t[p] == '\\' && p + 1 < n) {
            raw = 2;
            if (t[p + 1] == 'u' && p + 5 < n && mcp__hex4((const unsigned char *)t + p + 2, &cp)) {
                raw = 6;
                out = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
                if (cp >= 0xD800 && cp < 0xDC00 && p + 7 < n && t[p + 6] == '\\') { raw = 12; out = 4; }
            }
        }
        if (out > k) break;                  /* inside this character: it is the place */
        k -= out; p += raw;
    }
    return p < n ? p : n;
}

/* Appends n bytes to the entry's strings within the bound; 0 when the entry is bad now or
   memory ran out. q: the string's place in the text, for the sentence. */
static int mcp__cfg_add(mcp__cfgrun *r, mcp__cfgent *e, const char *s, size_t n, size_t q)
{
    if (r->nomem || e->bad) return 0;
    if (n > r->bound - e->s.len)
        return mcp__cfg_bad(r, e, q, "its strings grow past %lu bytes with their variables "
                            "expanded", (unsigned long)r->bound);
    if (mcp_buf_append(&e->s, s, n) != MCP_OK) { r->nomem = 1; return 0; }
    return 1;
}

/* The value of the variable named by ${c[0..n)}, or NULL when it has none; *def is its
   :-default (NULL: none). ${VAR}, ${VAR:-default}: the environment, then opts.variable;
   ${env:VAR}: the same; anything else (${input:x}, ${workspaceFolder:sub}): opts.variable. */
static const char *mcp__cfg_lookup(mcp__cfgrun *r, const char *c, size_t n, const char **def,
                                   size_t *deflen)
{
    const char *v = NULL, *dash;
    size_t k = 0, envat = MCP__CFG_NONE;
    *def = NULL; *deflen = 0;
    for (dash = c; (dash = (const char *)memchr(dash, ':', n - (size_t)(dash - c))) != NULL; dash++)
        if (dash + 1 < c + n && dash[1] == '-') break;
    if (dash) {                                    /* a default, if what precedes is a name */
        k = (size_t)(dash - c);
        if ((mcp__cfg_envname(c, k) == k && k) ||
            (k > 4 && !memcmp(c, "env:", 4) && mcp__cfg_envname(c + 4, k - 4) == k - 4)) {
            *def = dash + 2; *deflen = n - k - 2; n = k;
        }
    }
    if (mcp__cfg_envname(c, n) == n) envat = 0;
    else if (n > 4 && !memcmp(c, "env:", 4) && mcp__cfg_envname(c + 4, n - 4) == n - 4) envat = 4;
    r->tmp.len = 0;
    if (mcp_buf_append(&r->tmp, c, n) != MCP_OK || mcp_buf_append(&r->tmp, "", 1) != MCP_OK) {
        r->nomem = 1;
        return NULL;
    }
    if (envat != MCP__CFG_NONE && !r->o->no_env) v = getenv(r->tmp.data + envat);
    if (!v && r->o->variable) v = r->o->variable(r->o->user, r->tmp.data);
    if (v && !*v && *def) v = NULL;                 /* ${VAR:-x}: empty counts as unset, as in sh */
    return v;
}

/* Appends s[0..n) (a string value whose opening quote is at q) with its variables expanded.
   An unset variable without a default stays as written, noted once per parse. "$$" and a
   '$' not before '{' stay as they are, and so does "${" without a closing '}'. */
static int mcp__cfg_expand(mcp__cfgrun *r, mcp__cfgent *e, const char *s, size_t n, size_t q)
{
    size_t i = 0, from = 0, close, deflen;
    const char *p, *v, *def, *end;
    char shown[MCP__CFG_SHOWN + 4];
    while (i < n && (p = (const char *)memchr(s + i, '$', n - i)) != NULL) {
        i = (size_t)(p - s);
        if (i + 1 < n && s[i + 1] == '$') { i += 2; continue; }
        if (i + 2 >= n || s[i + 1] != '{') { i++; continue; }
        if (!(end = (const char *)memchr(s + i + 2, '}', n - i - 2))) break;
        close = (size_t)(end - s);
        if (close == i + 2) { i += 3; continue; }          /* ${} */
        v = mcp__cfg_lookup(r, s + i + 2, close - i - 2, &def, &deflen);
        if (r->nomem || !mcp__cfg_add(r, e, s + from, i - from, q)) return 0;
        if (v) { if (!mcp__cfg_add(r, e, v, strlen(v), q)) return 0; }
        else if (def) { if (!mcp__cfg_add(r, e, def, deflen, q)) return 0; }
        else {
            if (!mcp__cfg_add(r, e, s + i, close + 1 - i, q)) return 0;
            if (mcp__cfg_once(r, 'v', s + i + 2, close - i - 2)) {
                mcp__cfg_shown(s + i + 2, close - i - 2, shown);
                mcp__cfg_note(r, e, mcp__cfg_raw(r, q, i), "variable ${%s} is not set; left as "
                              "written", shown);
            }
        }
        from = i = close + 1;
    }
    return mcp__cfg_add(r, e, s + from, n - from, q);
}

/* Adds string value v (at q in the text) to the entry's strings, expanded and NUL-ended:
   its offset there, or MCP__CFG_NONE (the entry is bad, or memory ran out). what: the
   field, for the sentence. */
static size_t mcp__cfg_put(mcp__cfgrun *r, mcp__cfgent *e, const mcp_json *v, size_t q,
                           const char *what)
{
    const char *s = mcp_json_str(v);
    size_t n = mcp_json_len(v), at = e->s.len;
    if (strlen(s) != n) {
        mcp__cfg_bad(r, e, q, "\"%s\" holds a NUL character (\\u0000)", what);
        return MCP__CFG_NONE;
    }
    if (!mcp__cfg_expand(r, e, s, n, q) || !mcp__cfg_add(r, e, "", 1, q)) return MCP__CFG_NONE;
    return at;
}

/* ---- the fields of an entry ------------------------------------------------------------- */

static int mcp__cfg_is(const char *key, size_t klen, const char *name)
{
    return strlen(name) == klen && !memcmp(key, name, klen);
}

static int mcp__cfg_tchar(unsigned char c)   /* RFC 9110 token characters */
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int mcp__cfg_header_name(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) if (!mcp__cfg_tchar((unsigned char)s[i])) return 0;
    return n > 0;
}

static int mcp__cfg_header_value(const char *s, size_t n)   /* no CR, LF or other controls */
{
    size_t i;
    for (i = 0; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7F) return 0;
    return 1;
}

static int mcp__cfg_env_name(const char *s, size_t n)   /* what "K=V" can carry */
{
    return n > 0 && !memchr(s, '=', n) && !memchr(s, 0, n);
}

static int mcp__cfg_push(mcp__cfgrun *r, mcp_buf *list, size_t off)
{
    if (mcp_buf_append(list, &off, sizeof off) != MCP_OK) { r->nomem = 1; return 0; }
    return 1;
}

/* "args" (an array of strings), "env" and "headers" (objects of strings); v is at `at`. */
static void mcp__cfg_list(mcp__cfgrun *r, mcp__cfgent *e, const char *field, const mcp_json *v,
                          size_t at)
{
    int args = field[0] == 'a', env = field[0] == 'e';
    mcp_buf *list = args ? &e->args : env ? &e->env : &e->headers;
    mcp__sc sc;
    size_t i, k, ka, va, klen, off, vlen;
    const char *key;
    const mcp_json *item;
    char shown[MCP__CFG_SHOWN + 4];
    if (mcp_json_typeof(v) != (args ? MCP_JSON_ARRAY : MCP_JSON_OBJECT)) {
        mcp__cfg_bad(r, e, at, "\"%s\" must be an %s of strings", field, args ? "array" : "object");
        return;
    }
    list->len = 0;                                     /* a later "args" replaces an earlier one */
    mcp__sc_open(&sc, r->t, r->n, at);
    for (i = 0; i < mcp_json_len(v) && !e->bad && !r->nomem; i++) {
        item = mcp_json_at(v, i);
        ka = va = at;
        mcp__sc_next(&sc, &ka, &va);
        if (mcp_json_typeof(item) != MCP_JSON_STRING) {
            mcp__cfg_bad(r, e, va, "\"%s\" must be an %s of strings", field, args ? "array" : "object");
            return;
        }
        off = e->s.len;
        if (!args) {
            key = mcp_json_key_at(v, i, &klen);
            mcp__cfg_shown(key, klen, shown);
            if (env ? !mcp__cfg_env_name(key, klen) : !mcp__cfg_header_name(key, klen)) {
                mcp__cfg_bad(r, e, ka, "\"%s\" name \"%s\" is not a valid %s name", field, shown,
                             env ? "variable" : "header");
                return;
            }
            if (!mcp__cfg_add(r, e, key, klen, ka) || !mcp__cfg_add(r, e, env ? "=" : ": ", env ? 1 : 2, ka))
                return;
            k = e->s.len;
            if (mcp__cfg_put(r, e, item, va, field) == MCP__CFG_NONE) return;
            vlen = e->s.len - 1 - k;
            if (!env && !mcp__cfg_header_value(e->s.data + k, vlen)) {
                mcp__cfg_bad(r, e, va, "the value of header \"%s\" holds a line break or another "
                             "control character", shown);
                return;
            }
        } else if (mcp__cfg_put(r, e, item, va, field) == MCP__CFG_NONE) {
            return;
        }
        if (!mcp__cfg_push(r, list, off)) return;
    }
}

/* "command", "cwd", "url": a string that is not empty. */
static void mcp__cfg_string(mcp__cfgrun *r, mcp__cfgent *e, const char *field, size_t *slot,
                            const mcp_json *v, size_t at)
{
    if (mcp_json_typeof(v) != MCP_JSON_STRING || !mcp_json_len(v)) {
        mcp__cfg_bad(r, e, at, "\"%s\" must be a non-empty string", field);
        return;
    }
    *slot = mcp__cfg_put(r, e, v, at, field);
}

static void mcp__cfg_type(mcp__cfgrun *r, mcp__cfgent *e, const mcp_json *v, size_t at)
{
    const char *s = mcp_json_str(v);
    e->type_at = at;
    if (!s || strlen(s) != mcp_json_len(v)) s = "";
    if (!strcmp(s, "stdio")) e->type = MCP_STDIO;
    else if (!strcmp(s, "http")) e->type = MCP_HTTP;
    else if (!strcmp(s, "sse")) e->type = MCP_SSE;
    else if (!strcmp(s, "streamable-http") || !strcmp(s, "streamableHttp")) {
        e->type = MCP_HTTP;
        mcp__cfg_note(r, e, at, "type \"%s\" is read as \"http\"", s);
    } else mcp__cfg_bad(r, e, at, "\"type\" must be \"stdio\", \"http\" or \"sse\"");
}

/* One member of an entry: key[0..klen) with value v, key at ka and value at va. */
static void mcp__cfg_field(mcp__cfgrun *r, mcp__cfgent *e, const char *key, size_t klen,
                           const mcp_json *v, size_t ka, size_t va)
{
    int64_t ms;
    char shown[MCP__CFG_SHOWN + 4];
    int known = mcp__cfg_is(key, klen, "type") || mcp__cfg_is(key, klen, "command") ||
                mcp__cfg_is(key, klen, "args") || mcp__cfg_is(key, klen, "env") ||
                mcp__cfg_is(key, klen, "cwd") || mcp__cfg_is(key, klen, "url") ||
                mcp__cfg_is(key, klen, "headers") || mcp__cfg_is(key, klen, "timeout") ||
                mcp__cfg_is(key, klen, "disabled") || mcp__cfg_is(key, klen, "enabled");
    if (!known) {
        if (mcp__cfg_once(r, 'f', key, klen)) {
            mcp__cfg_shown(key, klen, shown);
            mcp__cfg_note(r, e, ka, "field \"%s\" is not read; ignored", shown);
        }
        return;
    }
    if (mcp_json_typeof(v) == MCP_JSON_NULL || e->bad) return;   /* null: as if absent */
    switch (key[0]) {
    case 't':
        if (key[1] == 'y') { mcp__cfg_type(r, e, v, va); break; }
        if (!mcp_json_int64(v, &ms) || ms <= 0 || ms > 2147483647)
            mcp__cfg_bad(r, e, va, "\"timeout\" must be a positive whole number of milliseconds");
        else e->timeout_ms = (int)ms;
        break;
    case 'a': mcp__cfg_list(r, e, "args", v, va); break;
    case 'h': mcp__cfg_list(r, e, "headers", v, va); break;
    case 'e':
        if (key[1] == 'n' && key[2] == 'v') { mcp__cfg_list(r, e, "env", v, va); break; }
        /* "enabled" */
        if (mcp_json_typeof(v) != MCP_JSON_BOOL) mcp__cfg_bad(r, e, va, "\"enabled\" must be true or false");
        else e->disabled = !mcp_json_is_true(v);
        break;
    case 'd':
        if (mcp_json_typeof(v) != MCP_JSON_BOOL) mcp__cfg_bad(r, e, va, "\"disabled\" must be true or false");
        else e->disabled = mcp_json_is_true(v);
        break;
    case 'c':
        if (key[1] == 'w') { mcp__cfg_string(r, e, "cwd", &e->cwd, v, va); break; }
        if (e->url != MCP__CFG_NONE) {
            mcp__cfg_bad(r, e, va, "both \"command\" and \"url\" are given; a server has one or the other");
            break;
        }
        mcp__cfg_string(r, e, "command", &e->command, v, va);
        break;
    default:                                                   /* "url" */
        if (e->command != MCP__CFG_NONE) {
            mcp__cfg_bad(r, e, va, "both \"command\" and \"url\" are given; a server has one or the other");
            break;
        }
        mcp__cfg_string(r, e, "url", &e->url, v, va);
    }
}

/* The NULL-ended array of the strings at the offsets in list, from *slot on in r->ptrs;
   NULL when it is empty. */
static const char *const *mcp__cfg_array(mcp__cfgrun *r, const mcp__cfgent *e, const mcp_buf *list,
                                         size_t *slot)
{
    const char **a = (const char **)(void *)r->ptrs.data + *slot;
    size_t i, n = list->len / sizeof(size_t), off;
    if (!n) return NULL;
    for (i = 0; i < n; i++) { memcpy(&off, list->data + i * sizeof off, sizeof off); a[i] = e->s.data + off; }
    a[n] = NULL;
    *slot += n + 1;
    return a;
}

/* Hands the entry to each: every check across fields done, the arrays made. */
static void mcp__cfg_deliver(mcp__cfgrun *r, mcp__cfgent *e, unsigned long line, unsigned long col,
                             void (*each)(void *user, const mcp_server_config *server))
{
    mcp_server_config cfg;
    size_t need, slot = 0;
    static const char *const kinds[] = { "stdio", "http", "sse" };
    if (!e->bad && e->type < 0) {
        if (e->command != MCP__CFG_NONE) e->type = MCP_STDIO;
        else if (e->url != MCP__CFG_NONE) e->type = MCP_HTTP;
        else mcp__cfg_bad(r, e, e->name_at, "needs \"command\" (a local server) or \"url\" (a remote one)");
    } else if (!e->bad && e->type == MCP_STDIO && e->command == MCP__CFG_NONE) {
        mcp__cfg_bad(r, e, e->type_at, "type \"stdio\" needs \"command\"");
    } else if (!e->bad && e->type != MCP_STDIO && e->url == MCP__CFG_NONE) {
        mcp__cfg_bad(r, e, e->type_at, "type \"%s\" needs \"url\"", kinds[e->type]);
    }
    need = (e->args.len + e->env.len + e->headers.len) / sizeof(size_t) + 3;
    if (mcp_buf_reserve(&r->ptrs, need * sizeof(char *)) != MCP_OK) { r->nomem = 1; return; }
    memset(&cfg, 0, sizeof cfg);
    cfg.name = e->name;
    cfg.desc.transport = e->type >= 0 ? (mcp_transport_kind)e->type : MCP_STDIO;
    cfg.desc.command = e->command != MCP__CFG_NONE ? e->s.data + e->command : NULL;
    cfg.desc.cwd = e->cwd != MCP__CFG_NONE ? e->s.data + e->cwd : NULL;
    cfg.desc.url = e->url != MCP__CFG_NONE ? e->s.data + e->url : NULL;
    cfg.desc.args = mcp__cfg_array(r, e, &e->args, &slot);
    cfg.desc.env = mcp__cfg_array(r, e, &e->env, &slot);
    cfg.desc.headers = mcp__cfg_array(r, e, &e->headers, &slot);
    cfg.desc.timeout_ms = e->timeout_ms;
    cfg.disabled = e->disabled || e->bad;
    cfg.error = e->bad ? e->error : NULL;
    cfg.file = r->given;
    cfg.line = (int)line; cfg.column = (int)col;
    if (e->bad) mcp__cfg_log(r, e->error);
    if (each) each(r->o->user, &cfg);
}

/* One server: name[0..nlen) (its key at ka) with value v (at va). */
static void mcp__cfg_entry(mcp__cfgrun *r, mcp__cfgent *e, const char *name, size_t nlen, size_t ka,
                           const mcp_json *v, size_t va,
                           void (*each)(void *user, const mcp_server_config *server))
{
    char shown[MCP__CFG_SHOWN + 4];
    unsigned long line, col;
    const char *key;
    size_t j, klen, fk, fv;
    mcp__sc sc;
    e->name = name; e->name_at = e->type_at = ka;
    e->s.len = e->args.len = e->env.len = e->headers.len = 0;
    e->command = e->cwd = e->url = MCP__CFG_NONE;
    e->type = -1; e->disabled = 0; e->timeout_ms = 0; e->bad = 0; e->error[0] = 0;
    mcp__cfg_shown(name, nlen, shown);
    snprintf(e->pre, sizeof e->pre, "server \"%s\": ", shown);
    mcp__cfg_lc(r, ka, &line, &col);
    if (!nlen) mcp__cfg_bad(r, e, ka, "a server's name must not be empty");
    else if (strlen(name) != nlen) mcp__cfg_bad(r, e, ka, "a server's name must not hold a NUL character");
    if (mcp_json_typeof(v) != MCP_JSON_OBJECT) {
        mcp__cfg_bad(r, e, va, "the entry must be an object");
    } else {
        mcp__sc_open(&sc, r->t, r->n, va);
        for (j = 0; j < mcp_json_len(v) && !r->nomem; j++) {
            fk = fv = va;
            mcp__sc_next(&sc, &fk, &fv);
            key = mcp_json_key_at(v, j, &klen);
            mcp__cfg_field(r, e, key, klen, mcp_json_at(v, j), fk, fv);
        }
    }
    if (!r->nomem) mcp__cfg_deliver(r, e, line, col, each);
}

/* The root: which member holds the servers (the last "mcpServers", else the last "servers"),
   found in the text too (*at). Returns the servers object, or NULL with err filled
   (MCP_ERR_PARSE). */
static const mcp_json *mcp__cfg_root(mcp__cfgrun *r, const mcp_json *root, size_t *at, mcp_error *err)
{
    size_t i, klen, use = MCP__CFG_NONE, other = MCP__CFG_NONE, km = MCP__CFG_NONE,
           ks = MCP__CFG_NONE, ka, va, ok = 0, root_at = mcp__sc_ws(r->t, r->n, 0);
    unsigned long line, col;
    const char *key;
    const mcp_json *servers;
    mcp__sc sc;
    mcp__cfg_lc(r, root_at, &line, &col);
    if (mcp_json_typeof(root) != MCP_JSON_OBJECT) {
        mcp__fail(err, MCP_ERR_PARSE, "%s:%lu:%lu: the file must hold an object with \"mcpServers\" "
                  "or \"servers\"", r->file, line, col);
        return NULL;
    }
    for (i = 0; i < mcp_json_len(root); i++) {
        key = mcp_json_key_at(root, i, &klen);
        if (mcp__cfg_is(key, klen, "mcpServers")) km = i;
        else if (mcp__cfg_is(key, klen, "servers")) ks = i;
    }
    if (km == MCP__CFG_NONE && ks == MCP__CFG_NONE) {
        mcp__fail(err, MCP_ERR_PARSE, "%s:%lu:%lu: the file has neither \"mcpServers\" nor \"servers\"",
                  r->file, line, col);
        return NULL;
    }
    use = km != MCP__CFG_NONE ? km : ks;
    if (km != MCP__CFG_NONE) other = ks;
    *at = root_at;
    mcp__sc_open(&sc, r->t, r->n, root_at);
    for (i = 0; i <= use || (other != MCP__CFG_NONE && i <= other); i++) {
        ka = va = root_at;
        if (!mcp__sc_next(&sc, &ka, &va)) break;
        if (i == use) *at = va;
        if (i == other) ok = ka;
    }
    servers = mcp_json_at(root, use);
    if (mcp_json_typeof(servers) != MCP_JSON_OBJECT) {
        mcp__cfg_lc(r, *at, &line, &col);
        mcp__fail(err, MCP_ERR_PARSE, "%s:%lu:%lu: \"%s\" must be an object of servers", r->file, line,
                  col, use == km ? "mcpServers" : "servers");
        return NULL;
    }
    if (other != MCP__CFG_NONE)
        mcp__cfg_note(r, NULL, ok, "both \"mcpServers\" and \"servers\" are given; \"servers\" is ignored");
    return servers;
}

MCPDEF mcp_status mcp_config_parse(const char *file, const char *text, size_t len,
                                   const mcp_config_opts *opts,
                                   void (*each)(void *user, const mcp_server_config *server),
                                   mcp_error *err)
{
    mcp_config_opts none;
    mcp__cfgrun r;
    mcp__cfgent e;
    mcp_json_opts jo;
    mcp__jerr je;
    mcp_error pe;
    mcp_json_doc *doc;
    const mcp_json *servers;
    size_t max, at, i, ka, va, nlen;
    unsigned long line, col;
    const char *name;
    mcp__sc sc;
    mcp_status st = MCP_OK;
    if (!opts) { memset(&none, 0, sizeof none); opts = &none; }
    memset(&r, 0, sizeof r);
    r.o = opts; r.given = file; r.file = file ? file : "<config>"; r.lc_line = 1;
    max = opts->max_size ? opts->max_size : MCP__CFG_MAX_SIZE;
    if (max > 0xFFFFFFFFu) max = 0xFFFFFFFFu;
    r.bound = 2 * max;
    if (!text && len)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_config_parse was given a NULL text of %lu bytes.",
                         (unsigned long)len);
    if (len > max)
        return mcp__fail(err, MCP_ERR_LIMIT, "%s: the file is %lu bytes, over the limit of %lu bytes "
                         "(raise mcp_config_opts.max_size).", r.file, (unsigned long)len, (unsigned long)max);
    if (!text) text = "";
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) { text += 3; len -= 3; }   /* editors write it */
    r.t = text; r.n = len;
    memset(&jo, 0, sizeof jo);
    jo.comments = 1; jo.max_size = len ? len : 1;
    if (!(doc = mcp__parse_comments(text, len, &jo, &pe, &je))) {
        if (je.at == (size_t)-1) return mcp__fail(err, pe.status, "%s", pe.message);   /* out of memory */
        mcp__cfg_lc(&r, je.at, &line, &col);
        return mcp__fail(err, pe.status, "%s:%lu:%lu: %s: %s", r.file, line, col,
                         pe.status == MCP_ERR_LIMIT ? "the file cannot be read" : "the file is not valid JSON",
                         je.what);
    }
    if (!(servers = mcp__cfg_root(&r, mcp_json_root(doc), &at, err))) {
        mcp_json_free(doc);
        return MCP_ERR_PARSE;
    }
    memset(&e, 0, sizeof e);
    mcp__sc_open(&sc, r.t, r.n, at);
    for (i = 0; i < mcp_json_len(servers) && !r.nomem; i++) {
        ka = va = at;
        mcp__sc_next(&sc, &ka, &va);
        name = mcp_json_key_at(servers, i, &nlen);
        mcp__cfg_entry(&r, &e, name, nlen, ka, mcp_json_at(servers, i), va, each);
    }
    if (r.nomem) st = mcp__fail(err, MCP_ERR_NOMEM, "Out of memory reading %s.", r.file);
    else mcp__ok(err);
    mcp_buf_free(&e.s); mcp_buf_free(&e.args); mcp_buf_free(&e.env); mcp_buf_free(&e.headers);
    mcp_buf_free(&r.noted); mcp_buf_free(&r.tmp); mcp_buf_free(&r.ptrs);
    mcp_json_free(doc);
    return st;
}

/* ---- the writer --------------------------------------------------------------------------- */

static mcp_status mcp__cfg_wlist(mcp_jw *w, const char *key, const char *const *a, char sep)
{
    const char *at;
    size_t i;
    if (!a || !a[0]) return w->status;
    mcp_jw_key(w, key);
    if (!sep) {
        mcp_jw_arr_begin(w);
        for (i = 0; a[i]; i++) mcp_jw_str(w, a[i]);
        return mcp_jw_arr_end(w);
    }
    mcp_jw_obj_begin(w);
    for (i = 0; a[i]; i++) {
        at = strchr(a[i], sep);
        mcp_jw_keyn(w, a[i], (size_t)(at - a[i]));
        at++;
        if (sep == ':' && *at == ' ') at++;           /* the space mcp_config_parse puts there */
        mcp_jw_str(w, at);
    }
    return mcp_jw_obj_end(w);
}

/* Every "K=V" and "Name: value" has the form a config file can say. */
static int mcp__cfg_wcheck(const char *const *a, char sep)
{
    const char *at;
    size_t i;
    for (i = 0; a && a[i]; i++) {
        if (!(at = strchr(a[i], sep))) return 0;
        if (sep == '=' ? !mcp__cfg_env_name(a[i], (size_t)(at - a[i]))
                       : !mcp__cfg_header_name(a[i], (size_t)(at - a[i]))) return 0;
        if (sep == ':' && !mcp__cfg_header_value(at + 1, strlen(at + 1))) return 0;
    }
    return 1;
}

MCPDEF mcp_status mcp_config_write(mcp_jw *w, const mcp_server_config *server)
{
    static const char *const kinds[] = { "stdio", "http", "sse" };
    const mcp_client_desc *d;
    int stdio;
    if (!w) return MCP_ERR_INVALID;
    if (w->status != MCP_OK) return w->status;
    if (!server) return mcp__jw_fail(w, MCP_ERR_INVALID, "mcp_config_write was given no server");
    d = &server->desc;
    stdio = d->transport == MCP_STDIO;
    if (server->error)
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a bad config entry (one with an error) cannot be written");
    if ((unsigned)d->transport > (unsigned)MCP_SSE)
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a custom transport has no config entry");
    if (stdio ? !d->command || !*d->command : !d->url || !*d->url)
        return mcp__jw_fail(w, MCP_ERR_INVALID, stdio ? "a stdio server's config entry needs a command"
                                                      : "an HTTP server's config entry needs a URL");
    if (d->timeout_ms < 0)
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a config entry cannot say \"no timeout\" (timeout_ms < 0)");
    if (!mcp__cfg_wcheck(d->env, '='))
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a config entry's env holds only \"NAME=value\" "
                            "(NAME not empty), never an unset \"NAME\"");
    if (!mcp__cfg_wcheck(d->headers, ':'))
        return mcp__jw_fail(w, MCP_ERR_INVALID, "a config entry's headers are \"Name: value\" with a "
                            "token for a name and no control characters");
    if (d->cwd && !*d->cwd) return mcp__jw_fail(w, MCP_ERR_INVALID, "a config entry's cwd is not empty");
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "type");
    mcp_jw_str(w, kinds[d->transport]);
    if (stdio) { mcp_jw_key(w, "command"); mcp_jw_str(w, d->command); }
    mcp__cfg_wlist(w, "args", d->args, 0);
    mcp__cfg_wlist(w, "env", d->env, '=');
    if (d->cwd) { mcp_jw_key(w, "cwd"); mcp_jw_str(w, d->cwd); }
    if (!stdio) { mcp_jw_key(w, "url"); mcp_jw_str(w, d->url); }
    mcp__cfg_wlist(w, "headers", d->headers, ':');
    if (d->timeout_ms > 0) { mcp_jw_key(w, "timeout"); mcp_jw_int(w, d->timeout_ms); }
    if (server->disabled) { mcp_jw_key(w, "disabled"); mcp_jw_bool(w, 1); }
    return mcp_jw_obj_end(w);
}

/* end of >>host.config */

/* ---- >>host.servers ----------------------------------------------------------------------- */

/* The host keeps each server's description (copied), its client while it has one, the state
   the program sees, and the three lists it offers, each as owned pages (or the cache's items
   until the server itself has answered). Everything here goes through the client's public
   API; the only waiting is mcp_poll over every client's descriptors at once. */

#define MCP__HOST_KINDS 3
#define MCP__HOST_PAGES 1000             /* pages of one list: a server that pages for ever */
#define MCP__HOST_RESTARTS 16            /* stdio restart times remembered */
#define MCP__HOST_NAME_MAX 64            /* what model APIs take as a function name */

static const char *const mcp__hk_method[MCP__HOST_KINDS] = { "tools/list", "prompts/list", "resources/list" };
static const char *const mcp__hk_field[MCP__HOST_KINDS] = { "tools", "prompts", "resources" };
static const char *const mcp__hk_notice[MCP__HOST_KINDS] = {
    "notifications/tools/list_changed", "notifications/prompts/list_changed",
    "notifications/resources/list_changed" };

typedef struct mcp__hlist {              /* one list of one server */
    mcp_json_doc **docs; size_t ndocs;   /* pages, owned (none while it is the cache's) */
    const mcp_json **items; size_t n, cap;
} mcp__hlist;

typedef struct mcp__hsrv {
    mcp_host *h;
    char *name, *file;
    mcp_client_desc d;                   /* the strings in it are this server's own copies */
    char **owned; size_t nowned;         /* every block d points into */
    mcp_auth auth;                       /* the host's, its callbacks through this server */
    uint64_t key;                        /* of its description, for the cache */
    mcp_server_state state;
    int has_error, bad; mcp_error error;   /* bad: an entry its config file got wrong */
    mcp_error endwhy;                    /* how its transport ended */
    char *auth_url;
    mcp_client *c;
    mcp_call *init;                      /* the connect, while it goes on */
    int up, ended;                       /* connected; its transport ended (seen in a callback) */
    mcp_call *fetch[MCP__HOST_KINDS];    /* a page being fetched */
    int stale[MCP__HOST_KINDS];          /* changed while being fetched: fetch again */
    mcp__hlist cur[MCP__HOST_KINDS], next[MCP__HOST_KINDS];
    int cached;                          /* cur came from the cache file */
    mcp_call *listen;                    /* 2026-07-28: the list_changed subscription */
    int64_t retry_at;
    int attempts, window_count;          /* connects since ready; in the breaker's window */
    int64_t window_start;
    int64_t restarts[MCP__HOST_RESTARTS]; int nrestarts;
    int fd_at, fd_n;                     /* its descriptors in the host's array this round */
} mcp__hsrv;

typedef struct mcp__hitem {              /* one entry of a merged list */
    char *qualified;
    mcp__hsrv *s;
    const char *name;
    const mcp_json *item;
    size_t order;                        /* server index, then item index: ties break on it */
    int mapped;                          /* its name had bytes the default rule changed */
} mcp__hitem;

struct mcp_host_call {
    mcp_host *h;
    mcp_host_call *prev, *next;
    mcp__hsrv *s;                        /* NULL once it ended before it was sent */
    char *server;                        /* its name, for the sentences (the server may go) */
    char *qualified, *guess;             /* routed by name: resolved again when it is sent; the
                                            server's own name for it as known at the start
                                            (then params holds the arguments) */
    int kind;                            /* MCP_HOST_*: what qualified names */
    char *method, *params;
    mcp_call_opts opts;
    int64_t deadline;                    /* -1: none */
    int timeout_ms;
    mcp_call *inner;                     /* once sent */
    int noted;                           /* its end was looked at (a server gone?) */
    mcp_status status;                   /* MCP_AGAIN until it ends without inner */
    mcp_error err;
};

struct mcp_host {
    mcp_host_desc d;
    char *client_name, *client_version, *separator, *cache_file;
    mcp__hsrv **srv; size_t nsrv, capsrv;
    mcp__hitem *list[MCP__HOST_KINDS]; size_t nlist[MCP__HOST_KINDS];
    mcp_host_call *calls;
    mcp_json_doc *cache;                 /* the cache file as read */
    int cache_read, cache_dirty, cache_warned;
    mcp_pollfd *fds; int nfds, capfds;
    uint64_t rng;
};

static void mcp__hs_log(mcp__hsrv *s, const char *fmt, ...) MCP__PRINTF(2, 3);
static void mcp__hs_log(mcp__hsrv *s, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    if (!s->h->d.on_log) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->h->d.on_log(s->h->d.user, s->h, s->name, msg);
}

static uint64_t mcp__fnv(uint64_t hash, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) { hash ^= (unsigned char)s[i]; hash *= 0x100000001B3u; }
    return hash;
}
static uint64_t mcp__fnv_str(uint64_t hash, const char *s)
{
    return mcp__fnv(mcp__fnv(hash, s ? s : "", s ? strlen(s) : 0), "\0", 1);
}

/* ---- a server's own copy of its description ---- */

static const char *mcp__hs_keep(mcp__hsrv *s, const char *t, int *ok)
{
    char *d, **grown;
    if (!t || !*ok) return NULL;
    grown = (char **)MCP_REALLOC(s->owned, (s->nowned + 1) * sizeof *grown, NULL);
    if (!grown || !(d = mcp__strdup(t))) { if (grown) s->owned = grown; *ok = 0; return NULL; }
    s->owned = grown;
    return s->owned[s->nowned++] = d;
}

static const char *const *mcp__hs_keepv(mcp__hsrv *s, const char *const *v, int *ok)
{
    size_t n = 0, i;
    char **arr, **grown;
    if (!v || !*ok) return NULL;
    while (v[n]) n++;
    grown = (char **)MCP_REALLOC(s->owned, (s->nowned + 1) * sizeof *grown, NULL);
    if (!grown) { *ok = 0; return NULL; }
    s->owned = grown;
    if (!(arr = (char **)MCP_MALLOC((n + 1) * sizeof *arr, NULL))) { *ok = 0; return NULL; }
    s->owned[s->nowned++] = (char *)arr;
    for (i = 0; i < n; i++) arr[i] = (char *)mcp__hs_keep(s, v[i], ok);
    arr[n] = NULL;
    return *ok ? (const char *const *)arr : NULL;
}

/* The description's key: what decides which server answered, not how the host talks to it. */
static uint64_t mcp__hs_key(const mcp_client_desc *d)
{
    const char *const *v;
    uint64_t k = 0xCBF29CE484222325u;
    char kind = (char)('0' + d->transport);
    k = mcp__fnv(k, &kind, 1);
    k = mcp__fnv_str(k, d->command);
    for (v = d->args; v && *v; v++) k = mcp__fnv_str(k, *v);
    k = mcp__fnv(k, "\1", 1);
    for (v = d->env; v && *v; v++) k = mcp__fnv_str(k, *v);
    k = mcp__fnv(k, "\1", 1);
    k = mcp__fnv_str(k, d->cwd);
    k = mcp__fnv_str(k, d->url);
    for (v = d->headers; v && *v; v++) k = mcp__fnv_str(k, *v);
    return k;
}

static void mcp__hl_clear(mcp__hlist *l)
{
    size_t i;
    for (i = 0; i < l->ndocs; i++) mcp_json_free(l->docs[i]);
    MCP_FREE(l->docs, NULL);
    MCP_FREE(l->items, NULL);
    memset(l, 0, sizeof *l);
}

static mcp_status mcp__hl_add_items(mcp__hlist *l, const mcp_json *arr)
{
    size_t i;
    const mcp_json *it;
    mcp_json_foreach(arr, i, it) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 16;
            const mcp_json **grown = (const mcp_json **)MCP_REALLOC((void *)l->items, cap * sizeof *grown, NULL);
            if (!grown) return MCP_ERR_NOMEM;
            l->items = grown; l->cap = cap;
        }
        l->items[l->n++] = it;
    }
    return MCP_OK;
}

/* ---- state, and what the program hears of it ---- */

static void mcp__hs_set(mcp__hsrv *s, mcp_server_state st)
{
    int changed = s->state != st;
    s->state = st;
    if (st != MCP_SERVER_NEEDS_AUTH && s->auth_url) { MCP_FREE(s->auth_url, NULL); s->auth_url = NULL; }
    if (changed && s->h->d.on_state)
        s->h->d.on_state(s->h->d.user, s->h, s->name, st,
                         s->has_error && st != MCP_SERVER_READY && st != MCP_SERVER_CONNECTING ? &s->error : NULL);
}

/* "Server "name": sentence", cut to fit: the program always learns which server it was. */
static void mcp__hs_said(char *out, size_t cap, const char *name, const char *msg)
{
    size_t n = 0, m;
    char tmp[sizeof ((mcp_error *)0)->message];
    const char *parts[4];
    int i;
    parts[0] = "Server \""; parts[1] = name; parts[2] = "\": "; parts[3] = msg;
    if (cap > sizeof tmp) cap = sizeof tmp;
    for (i = 0; i < 4 && n + 1 < cap; i++) {
        m = strlen(parts[i]);
        if (m > cap - 1 - n) m = cap - 1 - n;
        memcpy(tmp + n, parts[i], m);
        n += m;
    }
    tmp[n] = 0;
    memcpy(out, tmp, n + 1);                             /* msg may be out itself */
}

/* Keeps why the server failed, as a sentence that names it. */
static void mcp__hs_error(mcp__hsrv *s, const mcp_error *why)
{
    s->has_error = 1;
    s->error = *why;
    mcp__hs_said(s->error.message, sizeof s->error.message, s->name, why->message);
}

/* ---- the merged lists ---- */

/* The default rule: other bytes become '_' (*mapped then set); a name too long, or mapped
   onto a name already taken (hash 1), is cut and given '_' and 8 hex digits of a hash of the
   original pair, the same from run to run. */
static size_t mcp__host_qualify(mcp_host *h, const char *server, const char *name, char *out, size_t cap,
                                int hash, int *mapped)
{
    size_t n, i, len;
    int changed = 0;
    char raw[1024];
    *mapped = 0;
    if (h->d.qualify && (n = h->d.qualify(h->d.user, server, name, out, cap)) > 0 && n < cap) return n;
    len = (size_t)snprintf(raw, sizeof raw, "%s%s%s", server, h->separator, name);
    if (len >= sizeof raw) { len = sizeof raw - 1; changed = 1; }
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)raw[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-')) {
            raw[i] = '_'; changed = 1;
        }
    }
    *mapped = changed;
    if (!hash && len <= MCP__HOST_NAME_MAX) { memcpy(out, raw, len + 1); return len; }
    {   /* stable: the hash is of the original pair, so the same tool gets the same name */
        uint64_t k = mcp__fnv_str(mcp__fnv_str(0xCBF29CE484222325u, server), name);
        size_t keep = len < MCP__HOST_NAME_MAX - 9 ? len : MCP__HOST_NAME_MAX - 9;
        memcpy(out, raw, keep);
        snprintf(out + keep, cap - keep, "_%08x", (unsigned)(k ^ (k >> 32)));
        return keep + 9;
    }
}

static int mcp__hitem_cmp(const void *a, const void *b)
{
    const mcp__hitem *x = (const mcp__hitem *)a, *y = (const mcp__hitem *)b;
    int r = strcmp(x->qualified, y->qualified);
    return r ? r : x->order < y->order ? -1 : x->order > y->order;
}

static void mcp__host_list_free(mcp_host *h, int k)
{
    size_t i;
    for (i = 0; i < h->nlist[k]; i++) MCP_FREE(h->list[k][i].qualified, NULL);
    MCP_FREE(h->list[k], NULL);
    h->list[k] = NULL; h->nlist[k] = 0;
}

/* Rebuilds list k from every server's part: sorted by qualified name, so a model's prompt
   stays the same from one run to the next; a name met twice keeps its first server. */
static void mcp__host_rebuild(mcp_host *h, int k)
{
    size_t total = 0, i, j, n = 0, out;
    mcp__hitem *all;
    char q[512];
    mcp__host_list_free(h, k);
    for (i = 0; i < h->nsrv; i++)
        if (h->srv[i]->state != MCP_SERVER_DISABLED) total += h->srv[i]->cur[k].n;
    if (!total || !(all = (mcp__hitem *)MCP_MALLOC(total * sizeof *all, NULL))) return;
    for (i = 0; i < h->nsrv; i++) {
        mcp__hsrv *s = h->srv[i];
        if (s->state == MCP_SERVER_DISABLED) continue;
        for (j = 0; j < s->cur[k].n; j++) {
            const mcp_json *it = s->cur[k].items[j];
            const char *name = mcp_json_str(mcp_json_get(it, k == MCP_HOST_RESOURCES ? "uri" : "name"));
            if (!name || !*name) continue;
            all[n].mapped = 0;
            if (k == MCP_HOST_RESOURCES) { if (strlen(name) >= sizeof q) continue; strcpy(q, name); }
            else mcp__host_qualify(h, s->name, name, q, sizeof q, 0, &all[n].mapped);
            if (!(all[n].qualified = mcp__strdup(q))) continue;
            all[n].s = s; all[n].name = name; all[n].item = it;
            all[n].order = (i << 24) + j;
            n++;
        }
    }
    qsort(all, n, sizeof *all, mcp__hitem_cmp);
    for (i = 1, j = 0; i < n; i++)                       /* a mapped name that met another: hashed */
        if (!strcmp(all[i - 1].qualified, all[i].qualified)) {
            size_t a;
            int m;
            for (a = i - 1; a <= i; a++) {
                if (!all[a].mapped) continue;
                mcp__host_qualify(h, all[a].s->name, all[a].name, q, sizeof q, 1, &m);
                MCP_FREE(all[a].qualified, NULL);
                all[a].qualified = mcp__strdup(q);
                all[a].mapped = 0;
                j = 1;
            }
        }
    for (i = 0; i < n; i++) if (!all[i].qualified) { all[i] = all[--n]; i--; j = 1; }
    if (j) qsort(all, n, sizeof *all, mcp__hitem_cmp);
    for (i = out = 0; i < n; i++) {
        if (out && !strcmp(all[out - 1].qualified, all[i].qualified)) {
            if (all[i].s != all[out - 1].s || k != MCP_HOST_RESOURCES)
                mcp__hs_log(all[i].s, "%s \"%s\" has the qualified name \"%s\" of one of server \"%s\"; left out.",
                            k == MCP_HOST_TOOLS ? "Tool" : k == MCP_HOST_PROMPTS ? "Prompt" : "Resource",
                            all[i].name, all[i].qualified, all[out - 1].s->name);
            MCP_FREE(all[i].qualified, NULL);
            continue;
        }
        all[out++] = all[i];
    }
    h->list[k] = all; h->nlist[k] = out;
}

static void mcp__host_rebuild_all(mcp_host *h)
{
    int k;
    for (k = 0; k < MCP__HOST_KINDS; k++) mcp__host_rebuild(h, k);
}

/* ---- the cache file ---- */

static void mcp__host_cache_read(mcp_host *h)
{
    FILE *f;
    mcp_buf b;
    char chunk[8192];
    size_t got;
    mcp_json_opts o;
    if (h->cache_read || !h->cache_file) return;
    h->cache_read = 1;
    if (!(f = fopen(h->cache_file, "rb"))) return;       /* none yet: the first run */
    memset(&b, 0, sizeof b);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (b.len + got > ((size_t)64 << 20) || mcp_buf_append(&b, chunk, got) != MCP_OK) { b.len = 0; break; }
    fclose(f);
    memset(&o, 0, sizeof o);
    if (b.len) h->cache = mcp_json_parse_ex(b.data, b.len, &o, NULL);
    mcp_buf_free(&b);
    if (!h->cache && h->d.on_log)
        h->d.on_log(h->d.user, h, NULL, "The host's cache file is unreadable or not JSON; it is written again.");
}

/* The cached lists of servers that have none yet: what they offered last time. */
static void mcp__host_cache_apply(mcp_host *h)
{
    const mcp_json *arr = mcp_json_get(mcp_json_root(h->cache), "servers"), *e;
    size_t i, j;
    char key[17];
    int k, any = 0;
    mcp_json_foreach(arr, i, e) {
        const char *name = mcp_json_str(mcp_json_get(e, "name"));
        const char *ek = mcp_json_str(mcp_json_get(e, "key"));
        for (j = 0; name && ek && j < h->nsrv; j++) {
            mcp__hsrv *s = h->srv[j];
            snprintf(key, sizeof key, "%016llx", (unsigned long long)s->key);
            if (strcmp(s->name, name) || strcmp(key, ek) || s->up || s->cur[0].n || s->cur[1].n || s->cur[2].n) continue;
            for (k = 0; k < MCP__HOST_KINDS; k++) mcp__hl_add_items(&s->cur[k], mcp_json_get(e, mcp__hk_field[k]));
            s->cached = 1; any = 1;
        }
    }
    if (any) mcp__host_rebuild_all(h);
}

static void mcp__host_cache_write(mcp_host *h)
{
    mcp_jw w;
    size_t i, j, len;
    char key[17], *text, *tmp;
    int k;
    FILE *f;
    if (!h->cache_file || !h->cache_dirty) return;
    h->cache_dirty = 0;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "mcp.h host cache"); mcp_jw_int(&w, 1);
    mcp_jw_key(&w, "servers"); mcp_jw_arr_begin(&w);
    for (i = 0; i < h->nsrv; i++) {
        mcp__hsrv *s = h->srv[i];
        if (!s->cur[0].n && !s->cur[1].n && !s->cur[2].n) continue;
        snprintf(key, sizeof key, "%016llx", (unsigned long long)s->key);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "name"); mcp_jw_str(&w, s->name);
        mcp_jw_key(&w, "key"); mcp_jw_str(&w, key);
        for (k = 0; k < MCP__HOST_KINDS; k++) {
            mcp_jw_key(&w, mcp__hk_field[k]); mcp_jw_arr_begin(&w);
            for (j = 0; j < s->cur[k].n; j++) mcp_jw_value(&w, s->cur[k].items[j]);
            mcp_jw_arr_end(&w);
        }
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    if (!(text = mcp_jw_finish(&w, &len, NULL))) return;
    len = strlen(h->cache_file);
    if ((tmp = (char *)MCP_MALLOC(len + 5, NULL)) != NULL) {
        memcpy(tmp, h->cache_file, len); memcpy(tmp + len, ".tmp", 5);
        /* written beside it, then renamed: a reader never sees half a file */
        if ((f = fopen(tmp, "wb")) != NULL) {
            int ok = fputs(text, f) >= 0;
            ok = fclose(f) == 0 && ok;
            if (ok && rename(tmp, h->cache_file) == 0) tmp[0] = 0; else remove(tmp);
        }
        if (tmp[0] && !h->cache_warned && h->d.on_log) {
            h->cache_warned = 1;
            h->d.on_log(h->d.user, h, NULL, "The host cannot write its cache file; tools are listed without it.");
        }
        MCP_FREE(tmp, NULL);
    }
    mcp_free(text);
}

/* ---- connecting, failing, coming back ---- */

static uint64_t mcp__host_rand(mcp_host *h)
{
    h->rng ^= h->rng << 13; h->rng ^= h->rng >> 7; h->rng ^= h->rng << 17;
    return h->rng;
}

static void mcp__hs_drop_client(mcp__hsrv *s)
{
    int k;
    for (k = 0; k < MCP__HOST_KINDS; k++) {
        mcp_call_free(s->fetch[k]); s->fetch[k] = NULL;
        mcp__hl_clear(&s->next[k]);
        s->stale[k] = 0;
    }
    mcp_call_free(s->listen); s->listen = NULL;
    mcp_call_free(s->init); s->init = NULL;
    if (s->c) { mcp_client_close_now(s->c); mcp_client_free(s->c); }
    s->c = NULL;
    s->up = s->ended = 0;
}

/* Calls still waiting for this server fail with its error. */
static void mcp__hs_fail_waiting(mcp__hsrv *s)
{
    mcp_host_call *hc;
    for (hc = s->h->calls; hc; hc = hc->next)
        if (hc->s == s && !hc->inner && hc->status == MCP_AGAIN) {
            hc->status = s->has_error ? s->error.status : MCP_ERR_CLOSED;
            hc->err = s->error;
            if (!s->has_error) mcp__fail(&hc->err, MCP_ERR_CLOSED, "Server \"%s\" is not available.", s->name);
            hc->s = NULL;
        }
}

static int mcp__hs_restarts_left(mcp__hsrv *s)
{
    int per = s->h->d.restarts_per_minute > 0 ? s->h->d.restarts_per_minute : 3, i, n = 0;
    int64_t now = mcp_time_ms();
    for (i = 0; i < s->nrestarts; i++) if (now - s->restarts[i] < 60000) n++;
    return n < per && n < MCP__HOST_RESTARTS;
}

/* The connect, or the transport, ended in why: what comes next is the host's policy. */
static void mcp__hs_failed(mcp__hsrv *s, const mcp_error *why)
{
    mcp_host *h = s->h;
    int64_t now = mcp_time_ms();
    int limit = h->d.retry_limit > 0 ? h->d.retry_limit : 10;
    int64_t window = h->d.retry_window_ms > 0 ? h->d.retry_window_ms : 600000;
    int64_t lo = h->d.retry_min_ms > 0 ? h->d.retry_min_ms : 500, hi = h->d.retry_max_ms > 0 ? h->d.retry_max_ms : 300000;
    int timer;
    mcp__hs_drop_client(s);
    mcp__hs_error(s, why);
    if (s->state == MCP_SERVER_DISABLED) return;
    timer = s->d.transport != MCP_STDIO || h->d.restart == MCP_RESTART_ALWAYS;
    if (why->status == MCP_ERR_AUTH || why->status == MCP_ERR_INVALID) timer = 0;   /* no timer helps */
    if (timer && s->window_count >= limit) {
        char msg[1024];
        snprintf(msg, sizeof msg, "gave up after %d attempts in %lld s (mcp_host_retry tries again): %s",
                 s->window_count, (long long)(window / 1000), why->message);
        mcp__hs_said(s->error.message, sizeof s->error.message, s->name, msg);
        timer = 0;
    }
    if (timer) {
        int64_t delay = lo;
        int i;
        for (i = 1; i < s->attempts && delay < hi; i++) delay *= 2;
        if (delay > hi) delay = hi;
        delay = delay / 2 + (int64_t)(mcp__host_rand(h) % (uint64_t)(delay / 2 + 1));   /* jitter */
        s->retry_at = now + delay;
        mcp__hs_set(s, MCP_SERVER_RETRYING);
        return;
    }
    mcp__hs_set(s, MCP_SERVER_FAILED);
    mcp__hs_fail_waiting(s);
}

static void mcp__hs_on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params);
static void mcp__hs_on_request(void *user, mcp_client *c, mcp_request *req);
static void mcp__hs_on_stderr(void *user, mcp_client *c, const char *line, size_t len);
static void mcp__hs_on_close(void *user, mcp_client *c, const mcp_error *why);
static void mcp__hs_on_log(void *user, mcp_client *c, const char *message);

#ifndef MCP_NO_AUTH
static void mcp__hs_open_url(void *user, const char *url)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    const mcp_auth *a = s->h->d.auth;
    MCP_FREE(s->auth_url, NULL);
    s->auth_url = mcp__strdup(url);
    mcp__hs_set(s, MCP_SERVER_NEEDS_AUTH);
    if (a->open_url) a->open_url(a->user, url);
}
static int mcp__hs_load(void *user, const char *key, mcp_buf *value)
{
    const mcp_auth *a = ((mcp__hsrv *)user)->h->d.auth;
    return a->load ? a->load(a->user, key, value) : 0;
}
static void mcp__hs_save(void *user, const char *key, const char *value)
{
    const mcp_auth *a = ((mcp__hsrv *)user)->h->d.auth;
    if (a->save) a->save(a->user, key, value);
}
static mcp_status mcp__hs_sign(void *user, const char *input, size_t len, mcp_buf *sig, mcp_error *err)
{
    const mcp_auth *a = ((mcp__hsrv *)user)->h->d.auth;
    return a->sign(a->user, input, len, sig, err);
}
#endif

static void mcp__hs_start(mcp__hsrv *s)
{
    mcp_host *h = s->h;
    mcp_client_desc d = s->d;
    mcp_error err;
    int64_t now = mcp_time_ms();
    int64_t window = h->d.retry_window_ms > 0 ? h->d.retry_window_ms : 600000;
    mcp__hs_drop_client(s);
    if (now - s->window_start > window || !s->window_count) { s->window_start = now; s->window_count = 0; }
    s->window_count++;
    s->attempts++;
    if (!d.client_name) { d.client_name = h->client_name; d.client_version = h->client_version; }
    if (!d.timeout_ms) d.timeout_ms = h->d.timeout_ms;
    if (!d.tls) d.tls = h->d.tls;
    if (!d.capabilities && !d.capabilities_json) d.capabilities = h->d.capabilities;
    d.user = s;
    d.on_notification = mcp__hs_on_notification;
    d.on_request = h->d.on_request ? mcp__hs_on_request : NULL;
    d.on_stderr = h->d.on_stderr ? mcp__hs_on_stderr : NULL;
    d.on_close = mcp__hs_on_close;
    d.on_log = h->d.on_log ? mcp__hs_on_log : NULL;
    d.auth = NULL;
#ifndef MCP_NO_AUTH
    if (h->d.auth && d.transport != MCP_STDIO) {
        s->auth = *h->d.auth;
        s->auth.user = s;
        s->auth.open_url = mcp__hs_open_url;
        s->auth.load = mcp__hs_load;
        s->auth.save = mcp__hs_save;
        s->auth.sign = h->d.auth->sign ? mcp__hs_sign : NULL;
        d.auth = &s->auth;
    }
#endif
    s->has_error = 0;
    mcp__hs_set(s, MCP_SERVER_CONNECTING);
    if (!(s->c = mcp_client_new(&d, &err)) || !(s->init = mcp_client_connect_begin(s->c, &err))) {
        mcp__hs_failed(s, &err);
        return;
    }
}

static void mcp__hs_fetch(mcp__hsrv *s, int k, const char *cursor)
{
    mcp_jw w;
    char *params = NULL;
    mcp_error err;
    if (cursor) {
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w); mcp_jw_key(&w, "cursor"); mcp_jw_str(&w, cursor); mcp_jw_obj_end(&w);
        params = mcp_jw_finish(&w, NULL, NULL);
    } else mcp__hl_clear(&s->next[k]);
    s->fetch[k] = mcp_client_send(s->c, mcp__hk_method[k], params, NULL, &err);
    mcp_free(params);
    if (!s->fetch[k]) mcp__hs_log(s, "Listing its %s failed: %s", mcp__hk_field[k], err.message);
}

/* Connected: what it offers is listed (each list the server declares), changes followed. */
static void mcp__hs_up(mcp__hsrv *s)
{
    const mcp_json *caps = mcp_client_server_capabilities(s->c);
    const char *v = mcp_client_protocol_version(s->c);
    int k, listen = 0, cleared = 0;
    mcp_jw w;
    s->up = 1;
    s->attempts = 0;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    for (k = 0; k < MCP__HOST_KINDS; k++) {
        const mcp_json *cap = mcp_json_get(caps, mcp__hk_field[k]);
        if (!cap) {                                      /* it offers none of these: none cached either */
            if (s->cur[k].n) { mcp__hl_clear(&s->cur[k]); s->h->cache_dirty = 1; cleared = 1; }
            continue;
        }
        mcp__hs_fetch(s, k, NULL);
        if (mcp_json_is_true(mcp_json_get(cap, "listChanged"))) {
            mcp_jw_key(&w, k == 0 ? "toolsListChanged" : k == 1 ? "promptsListChanged" : "resourcesListChanged");
            mcp_jw_bool(&w, 1);
            listen = 1;
        }
    }
    mcp_jw_obj_end(&w);
    if (listen && v && strcmp(v, "2026-07-28") >= 0) {  /* no notifications without asking */
        char *filter = mcp_jw_finish(&w, NULL, NULL);
        mcp_error err;
        if (!(s->listen = mcp_client_listen(s->c, filter, NULL, &err)))
            mcp__hs_log(s, "Its list changes are not followed: %s", err.message);
        mcp_free(filter);
    } else mcp_jw_free(&w);
    if (!s->fetch[0] && !s->fetch[1] && !s->fetch[2]) s->cached = 0;
    if (cleared) mcp__host_rebuild_all(s->h);
    if (!s->fetch[0] && !s->fetch[1] && !s->fetch[2]) mcp__hs_set(s, MCP_SERVER_READY);
}

/* A page came back (or the fetch failed): the next page, or the list is complete. */
static void mcp__hs_page(mcp__hsrv *s, int k)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_call *call = s->fetch[k];
    mcp_status st = mcp_call_result(call, &doc, &err);
    const char *cursor;
    s->fetch[k] = NULL;
    if (st != MCP_OK) {
        mcp_call_free(call);
        if (st != MCP_ERR_CLOSED) mcp__hs_log(s, "Listing its %s failed: %s", mcp__hk_field[k], err.message);
        mcp__hl_clear(&s->next[k]);
    } else {
        mcp_json_doc **grown = (mcp_json_doc **)MCP_REALLOC(s->next[k].docs, (s->next[k].ndocs + 1) * sizeof *grown, NULL);
        mcp_call_free(call);
        if (!grown) { mcp_json_free(doc); mcp__hl_clear(&s->next[k]); return; }
        s->next[k].docs = grown;
        grown[s->next[k].ndocs++] = doc;
        mcp__hl_add_items(&s->next[k], mcp_json_get(mcp_json_root(doc), mcp__hk_field[k]));
        cursor = mcp_json_str(mcp_json_get(mcp_json_root(doc), "nextCursor"));
        if (cursor && *cursor && !s->stale[k]) {
            if (s->next[k].ndocs < MCP__HOST_PAGES) { mcp__hs_fetch(s, k, cursor); return; }
            mcp__hs_log(s, "Its %s go on past %d pages; the rest is left out.", mcp__hk_field[k], MCP__HOST_PAGES);
        }
        if (!s->stale[k]) {
            mcp__hl_clear(&s->cur[k]);
            s->cur[k] = s->next[k];
            memset(&s->next[k], 0, sizeof s->next[k]);
            s->h->cache_dirty = 1;
        }
    }
    if (s->stale[k] && s->c && s->up) { s->stale[k] = 0; mcp__hs_fetch(s, k, NULL); return; }
    if (!s->fetch[0] && !s->fetch[1] && !s->fetch[2]) s->cached = 0;
    mcp__host_rebuild(s->h, k);
    if ((s->state == MCP_SERVER_CONNECTING || s->state == MCP_SERVER_NEEDS_AUTH) && !s->fetch[0] && !s->fetch[1] &&
        !s->fetch[2]) {
        mcp__host_rebuild_all(s->h);
        mcp__hs_set(s, MCP_SERVER_READY);
    }
    if (s->h->d.on_change) s->h->d.on_change(s->h->d.user, s->h, s->name);
}

/* ---- the client's callbacks, through this server ---- */

static void mcp__hs_on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    int k;
    (void)c;
    for (k = 0; k < MCP__HOST_KINDS; k++)
        if (!strcmp(method, mcp__hk_notice[k]) && s->up) {
            if (s->fetch[k]) s->stale[k] = 1; else mcp__hs_fetch(s, k, NULL);
        }
    if (s->h->d.on_notification) s->h->d.on_notification(s->h->d.user, s->h, s->name, method, params);
}
static void mcp__hs_on_request(void *user, mcp_client *c, mcp_request *req)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    (void)c;
    s->h->d.on_request(s->h->d.user, s->h, s->name, req);
}
static void mcp__hs_on_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    (void)c;
    s->h->d.on_stderr(s->h->d.user, s->h, s->name, line, len);
}
static void mcp__hs_on_close(void *user, mcp_client *c, const mcp_error *why)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    (void)c;
    s->ended = 1;                                        /* the client is freed after its poll */
    s->endwhy = *why;
}
static void mcp__hs_on_log(void *user, mcp_client *c, const char *message)
{
    mcp__hsrv *s = (mcp__hsrv *)user;
    (void)c;
    s->h->d.on_log(s->h->d.user, s->h, s->name, message);
}

/* ---- calls ---- */

static mcp__hsrv *mcp__host_find(const mcp_host *h, int k, const char *qualified, const char **name)
{
    size_t lo = 0, hi = h->nlist[k];
    while (lo < hi) {                                    /* the list is sorted */
        size_t mid = (lo + hi) / 2;
        int r = strcmp(h->list[k][mid].qualified, qualified);
        if (!r) { *name = h->list[k][mid].name; return h->list[k][mid].s; }
        if (r < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

/* The params of a call routed by qualified name, with the name its server's list gives now. */
static char *mcp__hc_params(mcp_host_call *hc)
{
    const char *name = NULL;
    mcp__hsrv *s = mcp__host_find(hc->h, hc->kind, hc->qualified, &name);
    mcp_jw w;
    if (!s || s != hc->s) name = hc->guess;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, hc->kind == MCP_HOST_RESOURCES ? "uri" : "name");
    mcp_jw_str(&w, name);
    if (hc->params && hc->kind != MCP_HOST_RESOURCES) {
        mcp_jw_key(&w, "arguments");
        mcp_jw_raw(&w, hc->params, strlen(hc->params));
    }
    mcp_jw_obj_end(&w);
    return mcp_jw_finish(&w, NULL, NULL);
}

static void mcp__hc_send(mcp_host_call *hc)
{
    mcp__hsrv *s = hc->s;
    mcp_call_opts o = hc->opts;
    mcp_error err;
    char *named = hc->qualified ? mcp__hc_params(hc) : NULL;
    if (hc->deadline >= 0) {
        int64_t left = hc->deadline - mcp_time_ms();
        o.timeout_ms = left > 1 ? (left > 0x7FFFFFFF ? 0x7FFFFFFF : (int)left) : 1;
    }
    if (hc->qualified && !named) {
        hc->status = MCP_ERR_NOMEM;
        mcp__fail(&hc->err, MCP_ERR_NOMEM, "Out of memory.");
        hc->s = NULL;
        return;
    }
    hc->inner = mcp_client_send(s->c, hc->method, named ? named : hc->params, &o, &err);
    mcp_free(named);
    if (!hc->inner) {
        hc->status = err.status;
        hc->err = err;
        mcp__hs_said(hc->err.message, sizeof hc->err.message, s->name, err.message);
        hc->s = NULL;
    }
}

/* A call waiting for its server: sent once it is up, failed once the wait is over. */
static void mcp__hc_step(mcp_host_call *hc, int64_t now)
{
    mcp__hsrv *s = hc->s;
    if (hc->inner || hc->status != MCP_AGAIN || !s) return;
    if (s->up && s->c) { mcp__hc_send(hc); return; }
    if (hc->deadline >= 0 && now >= hc->deadline) {
        hc->status = MCP_ERR_TIMEOUT;
        mcp__fail(&hc->err, MCP_ERR_TIMEOUT, "Server \"%s\": Request timeout after %dms (the server was %s).", s->name,
                  hc->timeout_ms, s->state == MCP_SERVER_NEEDS_AUTH ? "waiting for the user to sign in" : "not connected yet");
        hc->s = NULL;
    }
}

/* An HTTP server that stopped answering shows it only in its calls (stdio's and HTTP+SSE's
   end their transport): a call that could not reach it takes the server down, to come back
   with the backoff. */
static void mcp__hc_ended(mcp_host_call *hc)
{
    mcp__hsrv *s = hc->s;
    mcp_error e;
    mcp_status st;
    if (hc->noted || !hc->inner || (st = mcp_call_status(hc->inner)) == MCP_AGAIN) return;
    hc->noted = 1;
    if ((st != MCP_ERR_IO && st != MCP_ERR_CLOSED) || !s || !s->c || !s->up || s->d.transport == MCP_STDIO) return;
    mcp_call_result(hc->inner, NULL, &e);
    mcp__hs_failed(s, &e);
}

static void mcp__host_calls_step(mcp_host *h)
{
    mcp_host_call *hc;
    int64_t now = mcp_time_ms();
    for (hc = h->calls; hc; hc = hc->next) { mcp__hc_step(hc, now); mcp__hc_ended(hc); }
}

/* ---- one round ---- */

static void mcp__hs_step(mcp__hsrv *s)
{
    mcp_error err;
    int k;
    if (s->init && mcp_call_status(s->init) != MCP_AGAIN) {
        mcp_status st = mcp_call_result(s->init, NULL, &err);
        mcp_call_free(s->init); s->init = NULL;
        if (st != MCP_OK) { mcp__hs_failed(s, &err); return; }
        mcp__hs_up(s);
    }
    for (k = 0; k < MCP__HOST_KINDS && s->c; k++)        /* (a page from the cache is in at once) */
        while (s->c && s->fetch[k] && mcp_call_status(s->fetch[k]) != MCP_AGAIN) mcp__hs_page(s, k);
    if (s->listen && mcp_call_status(s->listen) != MCP_AGAIN) { mcp_call_free(s->listen); s->listen = NULL; }
    if (s->ended && s->c) { err = s->endwhy; mcp__hs_failed(s, &err); }
}

static int64_t mcp__host_due(const mcp_host *h)
{
    int64_t due = -1, t, now = mcp_time_ms();
    size_t i;
    const mcp_host_call *hc;
    for (i = 0; i < h->nsrv; i++) {
        const mcp__hsrv *s = h->srv[i];
        int nt;
        if (s->c && (nt = mcp_client_next_timeout(s->c)) >= 0) { t = now + nt; if (due < 0 || t < due) due = t; }
        if (s->state == MCP_SERVER_RETRYING && (due < 0 || s->retry_at < due)) due = s->retry_at;
        if (s->c && (s->ended || (s->init && mcp_call_status(s->init) != MCP_AGAIN))) due = now;
    }
    for (hc = h->calls; hc; hc = hc->next)
        if (!hc->inner && hc->status == MCP_AGAIN && hc->s) {
            if (hc->s->up) due = now;
            else if (hc->deadline >= 0 && (due < 0 || hc->deadline < due)) due = hc->deadline;
        }
    return due;
}

MCPDEF int mcp_host_next_timeout(const mcp_host *h)
{
    int64_t due, left;
    if (!h || (due = mcp__host_due(h)) < 0) return -1;
    left = due - mcp_time_ms();
    return left <= 0 ? 0 : left > 0x7FFFFFFF ? 0x7FFFFFFF : (int)left;
}

static int mcp__host_gather(mcp_host *h)
{
    size_t i;
    int n = 0, total = 0, m;
    for (i = 0; i < h->nsrv; i++) if (h->srv[i]->c) total += mcp_client_pollfd_count(h->srv[i]->c);
    if (total > h->capfds) {
        mcp_pollfd *f = (mcp_pollfd *)MCP_REALLOC(h->fds, (size_t)total * sizeof *f, NULL);
        if (!f) return 0;
        h->fds = f;
        h->capfds = total;
    }
    for (i = 0; i < h->nsrv; i++) {
        mcp__hsrv *s = h->srv[i];
        s->fd_at = n;
        m = s->c && n < total ? mcp_client_pollfds(s->c, h->fds + n, total - n) : 0;
        s->fd_n = m;
        n += m;
    }
    h->nfds = n;
    return n;
}

MCPDEF int mcp_host_pollfds(const mcp_host *h, mcp_pollfd *fds, int max)
{
    size_t i;
    int n = 0;
    if (!h || !fds) return 0;
    for (i = 0; i < h->nsrv && n < max; i++)
        if (h->srv[i]->c) n += mcp_client_pollfds(h->srv[i]->c, fds + n, max - n);
    return n;
}

MCPDEF int mcp_host_pollfd_count(const mcp_host *h)
{
    size_t i;
    int n = 0;
    if (!h) return 0;
    for (i = 0; i < h->nsrv; i++) if (h->srv[i]->c) n += mcp_client_pollfd_count(h->srv[i]->c);
    return n;
}

MCPDEF mcp_status mcp_host_poll(mcp_host *h, int timeout_ms)
{
    int wait = timeout_ms, nt, n, i;
    size_t j;
    int64_t now;
    if (!h) return MCP_ERR_INVALID;
    mcp__host_calls_step(h);
    nt = mcp_host_next_timeout(h);
    if (nt >= 0 && (wait < 0 || nt < wait)) wait = nt;
    n = mcp__host_gather(h);
    if (!n && wait < 0) return MCP_OK;                   /* nothing could ever wake it */
    if (n || wait) mcp_poll(h->fds, n, wait);
    now = mcp_time_ms();
    for (j = 0; j < h->nsrv; j++) {                      /* only the servers with something to do */
        mcp__hsrv *s = h->srv[j];
        int ready = 0;
        if (!s->c) continue;
        for (i = s->fd_at; i < s->fd_at + s->fd_n && i < n && !ready; i++) if (h->fds[i].revents) ready = 1;
        if (ready || mcp_client_next_timeout(s->c) == 0 || !mcp_client_pollfd_count(s->c)) mcp_client_poll(s->c, 0);
    }
    for (j = 0; j < h->nsrv; j++) {
        mcp__hsrv *s = h->srv[j];
        mcp__hs_step(s);
        if (s->state == MCP_SERVER_RETRYING && !s->c && now >= s->retry_at) mcp__hs_start(s);
    }
    mcp__host_calls_step(h);
    mcp__host_cache_write(h);
    return MCP_OK;
}

/* ---- the host and its servers ---- */

MCPDEF mcp_host *mcp_host_new(const mcp_host_desc *desc, mcp_error *err)
{
    mcp_host *h = (mcp_host *)MCP_MALLOC(sizeof *h, NULL);
    if (!h) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory."); return NULL; }
    memset(h, 0, sizeof *h);
    if (desc) h->d = *desc;
    h->client_name = h->d.client_name ? mcp__strdup(h->d.client_name) : NULL;
    h->client_version = h->d.client_version ? mcp__strdup(h->d.client_version) : NULL;
    h->separator = mcp__strdup(h->d.separator ? h->d.separator : "__");
    h->cache_file = h->d.cache_file ? mcp__strdup(h->d.cache_file) : NULL;
    if ((h->d.client_name && !h->client_name) || (h->d.client_version && !h->client_version) || !h->separator ||
        (h->d.cache_file && !h->cache_file)) {
        mcp_host_free(h);
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
        return NULL;
    }
    h->d.client_name = h->client_name; h->d.client_version = h->client_version;
    h->d.separator = h->separator; h->d.cache_file = h->cache_file;
    h->rng = (uint64_t)mcp_time_ms() * 0x9E3779B97F4A7C15u ^ (uint64_t)(size_t)h;
    if (!h->rng) h->rng = 1;
    mcp__ok(err);
    return h;
}

static void mcp__hs_free(mcp__hsrv *s)
{
    size_t i;
    int k;
    mcp_host_call *hc;
    for (hc = s->h->calls; hc; hc = hc->next)            /* calls routed here but not sent */
        if (hc->s == s && !hc->inner && hc->status == MCP_AGAIN) {
            hc->status = MCP_ERR_CLOSED;
            mcp__fail(&hc->err, MCP_ERR_CLOSED, "Server \"%s\": Transport closed", s->name);
        }
    for (hc = s->h->calls; hc; hc = hc->next) if (hc->s == s) hc->s = NULL;
    mcp__hs_drop_client(s);
    for (k = 0; k < MCP__HOST_KINDS; k++) { mcp__hl_clear(&s->cur[k]); mcp__hl_clear(&s->next[k]); }
    for (i = 0; i < s->nowned; i++) MCP_FREE(s->owned[i], NULL);
    MCP_FREE(s->owned, NULL);
    MCP_FREE(s->name, NULL);
    MCP_FREE(s->file, NULL);
    MCP_FREE(s->auth_url, NULL);
    MCP_FREE(s, NULL);
}

MCPDEF void mcp_host_free(mcp_host *h)
{
    size_t i;
    int k, going = 1;
    int64_t until;
    mcp_host_call *hc;
    if (!h) return;
    for (i = 0; i < h->nsrv; i++)                        /* every server closes at once */
        if (h->srv[i]->c) mcp_client_close_begin(h->srv[i]->c);
    until = mcp_time_ms() + 30000;
    while (going && mcp_time_ms() < until) {
        int n = mcp__host_gather(h), nt, wait = 100;
        going = 0;
        for (i = 0; i < h->nsrv; i++) {
            mcp_client *c = h->srv[i]->c;
            if (!c || mcp_client_close_begin(c) != MCP_AGAIN) continue;
            going = 1;
            if ((nt = mcp_client_next_timeout(c)) >= 0 && nt < wait) wait = nt;
        }
        if (going) {
            mcp_poll(h->fds, n, wait);
            for (i = 0; i < h->nsrv; i++) if (h->srv[i]->c) mcp_client_poll(h->srv[i]->c, 0);
        }
    }
    for (hc = h->calls; hc; hc = hc->next) {
        if (hc->s && !hc->inner && hc->status == MCP_AGAIN) {
            hc->status = MCP_ERR_CLOSED;
            mcp__fail(&hc->err, MCP_ERR_CLOSED, "Server \"%s\": Transport closed", hc->s->name);
        }
        hc->h = NULL; hc->s = NULL;
    }
    for (i = 0; i < h->nsrv; i++) mcp__hs_free(h->srv[i]);
    for (hc = h->calls; hc; ) { mcp_host_call *nx = hc->next; hc->prev = hc->next = NULL; hc = nx; }
    for (k = 0; k < MCP__HOST_KINDS; k++) mcp__host_list_free(h, k);
    MCP_FREE(h->srv, NULL);
    mcp_json_free(h->cache);
    MCP_FREE(h->fds, NULL);
    MCP_FREE(h->client_name, NULL);
    MCP_FREE(h->client_version, NULL);
    MCP_FREE(h->separator, NULL);
    MCP_FREE(h->cache_file, NULL);
    MCP_FREE(h, NULL);
}

MCPDEF long mcp_host_server_find(const mcp_host *h, const char *name)
{
    size_t i;
    if (!h || !name) return -1;
    for (i = 0; i < h->nsrv; i++) if (!strcmp(h->srv[i]->name, name)) return (long)i;
    return -1;
}

/* Adds a server (or replaces the one of that name, in its place). */
static mcp_status mcp__host_put(mcp_host *h, const char *name, const mcp_client_desc *desc, int disabled,
                                const char *error, const char *file, mcp_error *err)
{
    mcp__hsrv *s;
    long at;
    int ok = 1;
    if (!name || !*name) return mcp__fail(err, MCP_ERR_INVALID, "A server needs a name.");
    if (!(s = (mcp__hsrv *)MCP_MALLOC(sizeof *s, NULL))) return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
    memset(s, 0, sizeof *s);
    s->h = h;
    s->d = *desc;
    s->name = mcp__strdup(name);
    s->file = file ? mcp__strdup(file) : NULL;
    s->d.command = mcp__hs_keep(s, desc->command, &ok);
    s->d.args = mcp__hs_keepv(s, desc->args, &ok);
    s->d.env = mcp__hs_keepv(s, desc->env, &ok);
    s->d.cwd = mcp__hs_keep(s, desc->cwd, &ok);
    s->d.url = mcp__hs_keep(s, desc->url, &ok);
    s->d.headers = mcp__hs_keepv(s, desc->headers, &ok);
    s->d.protocol_version = mcp__hs_keep(s, desc->protocol_version, &ok);
    s->d.client_name = mcp__hs_keep(s, desc->client_name, &ok);
    s->d.client_version = mcp__hs_keep(s, desc->client_version, &ok);
    s->d.capabilities_json = mcp__hs_keep(s, desc->capabilities_json, &ok);
    s->d.user = NULL;
    s->d.on_notification = NULL; s->d.on_request = NULL; s->d.on_stderr = NULL;
    s->d.on_close = NULL; s->d.on_log = NULL;
    if (!ok || !s->name || (file && !s->file)) { mcp__hs_free(s); return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory."); }
    s->key = mcp__hs_key(&s->d);
    s->state = disabled ? MCP_SERVER_DISABLED : MCP_SERVER_IDLE;
    if (error) {
        s->has_error = s->bad = 1;
        mcp__fail(&s->error, MCP_ERR_INVALID, "%s", error);
    }
    if ((at = mcp_host_server_find(h, name)) >= 0) {
        mcp__hs_free(h->srv[at]);
        h->srv[at] = s;
    } else {
        if (h->nsrv == h->capsrv) {
            size_t cap = h->capsrv ? h->capsrv * 2 : 8;
            mcp__hsrv **grown = (mcp__hsrv **)MCP_REALLOC(h->srv, cap * sizeof *grown, NULL);
            if (!grown) { mcp__hs_free(s); return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory."); }
            h->srv = grown; h->capsrv = cap;
        }
        h->srv[h->nsrv++] = s;
    }
    if (h->cache_read) mcp__host_cache_apply(h);
    mcp__host_rebuild_all(h);
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_add(mcp_host *h, const char *name, const mcp_client_desc *desc, mcp_error *err)
{
    if (!h || !desc) return mcp__fail(err, MCP_ERR_INVALID, "mcp_host_add needs a host and a description.");
    return mcp__host_put(h, name, desc, 0, NULL, NULL, err);
}

typedef struct mcp__hload { mcp_host *h; mcp_status st; mcp_error *err; } mcp__hload;

static void mcp__host_each(void *user, const mcp_server_config *cfg)
{
    mcp__hload *l = (mcp__hload *)user;
    mcp_error e;
    if (l->st != MCP_OK) return;
    if (mcp__host_put(l->h, cfg->name, &cfg->desc, cfg->disabled, cfg->error, cfg->file, &e) != MCP_OK) {
        l->st = e.status;
        if (l->err) *l->err = e;
    }
}

static void mcp__host_cfg_log(void *user, const char *message)
{
    mcp_host *h = ((mcp__hload *)user)->h;
    if (h->d.config.on_log) h->d.config.on_log(h->d.config.user, message);
    if (h->d.on_log) h->d.on_log(h->d.user, h, NULL, message);
}

static const char *mcp__host_cfg_var(void *user, const char *name)
{
    mcp_host *h = ((mcp__hload *)user)->h;
    return h->d.config.variable ? h->d.config.variable(h->d.config.user, name) : NULL;
}

MCPDEF mcp_status mcp_host_load_text(mcp_host *h, const char *file, const char *text, size_t len, mcp_error *err)
{
    mcp_config_opts o;
    mcp__hload l;
    mcp_status st;
    if (!h || (!text && len)) return mcp__fail(err, MCP_ERR_INVALID, "mcp_host_load_text needs a host and text.");
    o = h->d.config;
    o.user = &l;                                         /* each, variable and on_log all get it */
    o.variable = mcp__host_cfg_var;
    o.on_log = mcp__host_cfg_log;
    l.h = h; l.st = MCP_OK; l.err = err;
    st = mcp_config_parse(file, text, len, &o, mcp__host_each, err);
    if (st == MCP_OK && l.st != MCP_OK) st = l.st;
    return st;
}

MCPDEF mcp_status mcp_host_load(mcp_host *h, const char *path, mcp_error *err)
{
    FILE *f;
    mcp_buf b;
    char chunk[8192];
    size_t got, max = h && h->d.config.max_size ? h->d.config.max_size : ((size_t)4 << 20);
    mcp_status st;
    if (!h || !path) return mcp__fail(err, MCP_ERR_INVALID, "mcp_host_load needs a host and a path.");
    if (!(f = fopen(path, "rb"))) {
        int e = errno;
        mcp__fail(err, MCP_ERR_IO, "Cannot read the config file \"%s\": %s.", path, strerror(e));
        if (err) err->sys_errno = e;
        return MCP_ERR_IO;
    }
    memset(&b, 0, sizeof b);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + got > max) {
            fclose(f); mcp_buf_free(&b);
            return mcp__fail(err, MCP_ERR_LIMIT, "The config file \"%s\" is larger than %lu bytes.", path, (unsigned long)max);
        }
        if (mcp_buf_append(&b, chunk, got) != MCP_OK) { fclose(f); mcp_buf_free(&b); return mcp__fail(err, MCP_ERR_NOMEM, "Out of memory."); }
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f); mcp_buf_free(&b);
        mcp__fail(err, MCP_ERR_IO, "Cannot read the config file \"%s\": %s.", path, strerror(e));
        if (err) err->sys_errno = e;
        return MCP_ERR_IO;
    }
    fclose(f);
    st = mcp_host_load_text(h, path, b.data ? b.data : "", b.len, err);
    mcp_buf_free(&b);
    return st;
}

MCPDEF mcp_status mcp_host_connect(mcp_host *h, mcp_error *err)
{
    size_t i;
    if (!h) return mcp__fail(err, MCP_ERR_INVALID, "mcp_host_connect needs a host.");
    if (!h->cache_read) { mcp__host_cache_read(h); mcp__host_cache_apply(h); }
    for (i = 0; i < h->nsrv; i++) if (h->srv[i]->state == MCP_SERVER_IDLE) mcp__hs_start(h->srv[i]);
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_wait(mcp_host *h, int timeout_ms)
{
    int64_t until = timeout_ms >= 0 ? mcp_time_ms() + timeout_ms : -1;
    if (!h) return MCP_ERR_INVALID;
    for (;;) {
        size_t i;
        int busy = 0;
        int64_t now;
        for (i = 0; i < h->nsrv && !busy; i++) busy = h->srv[i]->state == MCP_SERVER_CONNECTING;
        if (!busy) return MCP_OK;
        now = mcp_time_ms();
        if (until >= 0 && now >= until) return MCP_ERR_TIMEOUT;
        mcp_host_poll(h, until >= 0 ? (int)(until - now) : -1);
    }
}

static mcp__hsrv *mcp__host_srv(const mcp_host *h, const char *name, mcp_error *err)
{
    long i = mcp_host_server_find(h, name);
    if (i < 0) { mcp__fail(err, MCP_ERR_INVALID, "No server is named \"%s\".", name ? name : ""); return NULL; }
    return h->srv[i];
}

MCPDEF mcp_status mcp_host_disable(mcp_host *h, const char *server, mcp_error *err)
{
    mcp__hsrv *s = mcp__host_srv(h, server, err);
    if (!s) return MCP_ERR_INVALID;
    mcp__hs_drop_client(s);
    if (!s->bad) s->has_error = 0;
    mcp__hs_set(s, MCP_SERVER_DISABLED);
    mcp__hs_fail_waiting(s);
    mcp__host_rebuild_all(h);
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_enable(mcp_host *h, const char *server, mcp_error *err)
{
    mcp__hsrv *s = mcp__host_srv(h, server, err);
    if (!s) return MCP_ERR_INVALID;
    if (s->bad) return mcp__fail(err, MCP_ERR_INVALID, "Server \"%s\" cannot be enabled: %s", server, s->error.message);
    if (s->state == MCP_SERVER_DISABLED) {
        s->has_error = 0;
        s->window_count = 0; s->attempts = 0;
        mcp__hs_start(s);
        mcp__host_rebuild_all(h);
    }
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_retry(mcp_host *h, const char *server, mcp_error *err)
{
    mcp__hsrv *s = mcp__host_srv(h, server, err);
    if (!s) return MCP_ERR_INVALID;
    if (s->state == MCP_SERVER_DISABLED) return mcp__fail(err, MCP_ERR_INVALID, "Server \"%s\" is disabled.", server);
    if (s->state != MCP_SERVER_READY) {
        s->window_count = 0; s->attempts = 0; s->nrestarts = 0;
        mcp__hs_start(s);
    }
    mcp__ok(err);
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_auth_redirect(mcp_host *h, const char *server, const char *url, mcp_error *err)
{
    mcp__hsrv *s = mcp__host_srv(h, server, err);
    if (!s) return MCP_ERR_INVALID;
    if (!s->c) return mcp__fail(err, MCP_ERR_INVALID, "Server \"%s\" is not signing in.", server);
    return mcp_client_auth_redirect(s->c, url, err);
}

MCPDEF size_t mcp_host_server_count(const mcp_host *h) { return h ? h->nsrv : 0; }

MCPDEF mcp_status mcp_host_server_get(const mcp_host *h, size_t i, mcp_host_server *out)
{
    const mcp__hsrv *s;
    if (!h || !out || i >= h->nsrv) return MCP_ERR_INVALID;
    s = h->srv[i];
    memset(out, 0, sizeof *out);
    out->name = s->name;
    out->state = s->state;
    out->transport = s->c ? mcp_client_transport(s->c, NULL) : s->d.transport;
    out->file = s->file;
    out->error = s->has_error ? &s->error : NULL;
    out->retry_at = s->state == MCP_SERVER_RETRYING ? s->retry_at : 0;
    out->auth_url = s->auth_url;
    out->attempts = s->attempts;
    out->tools = s->cur[0].n; out->prompts = s->cur[1].n; out->resources = s->cur[2].n;
    out->cached = s->cached;
    out->client = s->c;
    return MCP_OK;
}

/* ---- >>host.lists ---- */

MCPDEF size_t mcp_host_count(const mcp_host *h, mcp_host_kind which)
{
    return h && (int)which >= 0 && (int)which < MCP__HOST_KINDS ? h->nlist[which] : 0;
}

MCPDEF mcp_status mcp_host_item_get(const mcp_host *h, mcp_host_kind which, size_t i, mcp_host_item *out)
{
    const mcp__hitem *it;
    if (!out || i >= mcp_host_count(h, which)) return MCP_ERR_INVALID;
    it = &h->list[which][i];
    out->qualified = it->qualified;
    out->server = it->s->name;
    out->name = it->name;
    out->item = it->item;
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_list(mcp_host *h, mcp_host_kind which, mcp_json_doc **result, mcp_error *err)
{
    mcp_jw w;
    size_t i, j, len;
    char *text;
    if (!h || !result || (int)which < 0 || (int)which >= MCP__HOST_KINDS)
        return mcp__fail(err, MCP_ERR_INVALID, "mcp_host_list needs a host, a list and a place for the result.");
    *result = NULL;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, mcp__hk_field[which]);
    mcp_jw_arr_begin(&w);
    for (i = 0; i < h->nlist[which]; i++) {
        const mcp__hitem *it = &h->list[which][i];
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, which == MCP_HOST_RESOURCES ? "uri" : "name");
        mcp_jw_str(&w, it->qualified);
        for (j = 0; j < mcp_json_len(it->item); j++) {
            size_t kl;
            const char *key = mcp_json_key_at(it->item, j, &kl);
            if (kl == (which == MCP_HOST_RESOURCES ? 3u : 4u) && !memcmp(key, which == MCP_HOST_RESOURCES ? "uri" : "name", kl)) continue;
            mcp_jw_keyn(&w, key, kl);
            mcp_jw_value(&w, mcp_json_at(it->item, j));
        }
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    if (!(text = mcp_jw_finish(&w, &len, err))) return err ? err->status : MCP_ERR_NOMEM;
    *result = mcp_json_parse(text, len, err);
    mcp_free(text);
    return *result ? MCP_OK : (err ? err->status : MCP_ERR_NOMEM);
}

/* ---- >>host.calls ---- */

/* A call to server s; routed by a qualified name of list kind, it keeps the name (and guess,
   the server's own name for it now) and params are the arguments. */
static mcp_host_call *mcp__hc_new(mcp_host *h, mcp__hsrv *s, const char *method, const char *params,
                                  const mcp_call_opts *opts, int kind, const char *qualified, const char *guess,
                                  mcp_error *err)
{
    mcp_host_call *hc = (mcp_host_call *)MCP_MALLOC(sizeof *hc, NULL);
    int t;
    if (!hc) { mcp__fail(err, MCP_ERR_NOMEM, "Out of memory."); return NULL; }
    memset(hc, 0, sizeof *hc);
    hc->h = h; hc->s = s;
    hc->method = mcp__strdup(method);
    hc->params = params ? mcp__strdup(params) : NULL;
    hc->server = mcp__strdup(s->name);
    hc->kind = kind;
    hc->qualified = qualified ? mcp__strdup(qualified) : NULL;
    hc->guess = guess ? mcp__strdup(guess) : NULL;
    if (!hc->method || (params && !hc->params) || !hc->server || (qualified && (!hc->qualified || !hc->guess))) {
        MCP_FREE(hc->method, NULL); MCP_FREE(hc->params, NULL); MCP_FREE(hc->server, NULL);
        MCP_FREE(hc->qualified, NULL); MCP_FREE(hc->guess, NULL); MCP_FREE(hc, NULL);
        mcp__fail(err, MCP_ERR_NOMEM, "Out of memory.");
        return NULL;
    }
    if (opts) hc->opts = *opts;
    t = hc->opts.timeout_ms ? hc->opts.timeout_ms : s->d.timeout_ms ? s->d.timeout_ms : h->d.timeout_ms ? h->d.timeout_ms : 30000;
    hc->timeout_ms = t;
    hc->deadline = t > 0 ? mcp_time_ms() + t : -1;
    hc->status = MCP_AGAIN;
    hc->next = h->calls;
    if (h->calls) h->calls->prev = hc;
    h->calls = hc;
    /* a server that is not up: started if it may be, else the call fails with its error */
    if (s->state == MCP_SERVER_DISABLED) {
        hc->status = MCP_ERR_INVALID;
        mcp__fail(&hc->err, MCP_ERR_INVALID, "Server \"%s\" is disabled%s%s", s->name,
                  s->has_error ? ": " : ".", s->has_error ? s->error.message : "");
        hc->s = NULL;
    } else if (s->state == MCP_SERVER_IDLE) {
        mcp__hs_start(s);
    } else if (s->state == MCP_SERVER_FAILED) {
        if (s->d.transport == MCP_STDIO && h->d.restart == MCP_RESTART_ON_CALL && s->error.status != MCP_ERR_INVALID &&
            mcp__hs_restarts_left(s)) {
            if (s->nrestarts == MCP__HOST_RESTARTS) { memmove(s->restarts, s->restarts + 1, sizeof s->restarts - sizeof s->restarts[0]); s->nrestarts--; }
            s->restarts[s->nrestarts++] = mcp_time_ms();
            s->window_count = 0;
            mcp__hs_start(s);
        } else {
            hc->status = s->error.status;
            hc->err = s->error;
            hc->s = NULL;
        }
    }
    if (hc->s) mcp__hc_step(hc, mcp_time_ms());
    mcp__ok(err);
    return hc;
}

/* The server a qualified name belongs to: its list says, else (a server that has not listed
   what it offers yet: starting, failed before it listed) the server whose prefix it has,
   the name after it taken as the tool's until the server's own list says otherwise. */
static mcp__hsrv *mcp__host_route(mcp_host *h, int k, const char *qualified, const char **name, mcp_error *err)
{
    mcp__hsrv *s = mcp__host_find(h, k, qualified, name), *best = NULL;
    size_t i, n, blen = 0;
    char pre[512];
    int mapped;
    if (s) return s;
    for (i = 0; k != MCP_HOST_RESOURCES && i < h->nsrv; i++) {
        mcp__hsrv *t = h->srv[i];
        if (t->state == MCP_SERVER_DISABLED || (t->state == MCP_SERVER_READY && !t->cached)) continue;
        n = mcp__host_qualify(h, t->name, "", pre, sizeof pre, 0, &mapped);   /* "server__" */
        if (n && n > blen && !strncmp(qualified, pre, n) && qualified[n]) { best = t; blen = n; }
    }
    if (best) { *name = qualified + blen; return best; }
    mcp__fail(err, MCP_ERR_INVALID, "No server offers the %s \"%s\".",
              k == MCP_HOST_TOOLS ? "tool" : k == MCP_HOST_PROMPTS ? "prompt" : "resource", qualified);
    return NULL;
}

/* {"name": name, "arguments": args} (or uri for resources/read) */
static mcp_host_call *mcp__host_send_named(mcp_host *h, int k, const char *qualified, const char *args_json,
                                           const mcp_call_opts *opts, mcp_error *err)
{
    const char *name = NULL;
    mcp__hsrv *s;
    mcp_json_doc *check;
    static const char *const method[MCP__HOST_KINDS] = { "tools/call", "prompts/get", "resources/read" };
    if (!h || !qualified) { mcp__fail(err, MCP_ERR_INVALID, "A call needs a host and a name."); return NULL; }
    if (!(s = mcp__host_route(h, k, qualified, &name, err))) return NULL;
    if (args_json && k != MCP_HOST_RESOURCES) {          /* refused now, not when its server is up */
        if (!(check = mcp_json_parse(args_json, strlen(args_json), err))) {
            if (err) mcp__fail(err, MCP_ERR_INVALID, "The arguments are not valid JSON: %.400s", err->message);
            return NULL;
        }
        mcp_json_free(check);
    }
    return mcp__hc_new(h, s, method[k], k == MCP_HOST_RESOURCES ? NULL : args_json, opts, k, qualified, name, err);
}

MCPDEF mcp_host_call *mcp_host_send_tool(mcp_host *h, const char *qualified, const char *args_json,
                                         const mcp_call_opts *opts, mcp_error *err)
{
    return mcp__host_send_named(h, MCP_HOST_TOOLS, qualified, args_json, opts, err);
}

MCPDEF mcp_host_call *mcp_host_send(mcp_host *h, const char *server, const char *method, const char *params_json,
                                    const mcp_call_opts *opts, mcp_error *err)
{
    mcp__hsrv *s;
    if (!h || !method) { mcp__fail(err, MCP_ERR_INVALID, "A call needs a host and a method."); return NULL; }
    if (!(s = mcp__host_srv(h, server, err))) return NULL;
    return mcp__hc_new(h, s, method, params_json, opts, 0, NULL, NULL, err);
}

MCPDEF mcp_status mcp_host_call_status(const mcp_host_call *hc)
{
    if (!hc) return MCP_ERR_INVALID;
    return hc->inner ? mcp_call_status(hc->inner) : hc->status;
}

MCPDEF mcp_status mcp_host_call_result(mcp_host_call *hc, mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    if (result) *result = NULL;
    if (!hc) return mcp__fail(err, MCP_ERR_INVALID, "No call.");
    if (!hc->inner) {
        if (hc->status == MCP_AGAIN) return MCP_AGAIN;
        if (err) *err = hc->err;
        return hc->status;
    }
    st = mcp_call_result(hc->inner, result, err);
    if (st < 0 && err && hc->server) {                   /* the sentence names the server */
        mcp__hs_said(err->message, sizeof err->message, hc->server, err->message);
    }
    return st;
}

MCPDEF mcp_status mcp_host_call_cancel(mcp_host_call *hc, const char *reason)
{
    if (!hc) return MCP_ERR_INVALID;
    if (hc->inner) return mcp_call_cancel(hc->inner, reason);
    if (hc->status == MCP_AGAIN) {
        hc->status = MCP_ERR_CANCELLED;
        mcp__fail(&hc->err, MCP_ERR_CANCELLED, "Request cancelled%s%s", reason ? ": " : "", reason ? reason : "");
    }
    return MCP_OK;
}

MCPDEF mcp_status mcp_host_call_wait(mcp_host_call *hc, int timeout_ms)
{
    int64_t until = timeout_ms >= 0 ? mcp_time_ms() + timeout_ms : -1;
    mcp_status st;
    if (!hc) return MCP_ERR_INVALID;
    while ((st = mcp_host_call_status(hc)) == MCP_AGAIN && hc->h) {
        int64_t now = mcp_time_ms();
        if (until >= 0 && now >= until) return MCP_AGAIN;
        mcp_host_poll(hc->h, until >= 0 ? (int)(until - now) : -1);
    }
    return st;
}

MCPDEF void mcp_host_call_free(mcp_host_call *hc)
{
    if (!hc) return;
    if (hc->h) {
        if (hc->prev) hc->prev->next = hc->next; else hc->h->calls = hc->next;
        if (hc->next) hc->next->prev = hc->prev;
    }
    mcp_call_free(hc->inner);
    MCP_FREE(hc->method, NULL);
    MCP_FREE(hc->params, NULL);
    MCP_FREE(hc->server, NULL);
    MCP_FREE(hc->qualified, NULL);
    MCP_FREE(hc->guess, NULL);
    MCP_FREE(hc, NULL);
}

static mcp_status mcp__host_block(mcp_host *h, mcp_host_call *hc, mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    (void)h;
    if (!hc) return err ? err->status : MCP_ERR_INVALID;
    mcp_host_call_wait(hc, -1);
    st = mcp_host_call_result(hc, result, err);
    mcp_host_call_free(hc);
    if (st == MCP_OK) mcp__ok(err);
    return st;
}

MCPDEF mcp_status mcp_host_call_tool(mcp_host *h, const char *qualified, const char *args_json,
                                     mcp_json_doc **result, mcp_error *err)
{
    mcp_error e;
    mcp_host_call *hc = mcp__host_send_named(h, MCP_HOST_TOOLS, qualified, args_json, NULL, err ? err : &e);
    return mcp__host_block(h, hc, result, err ? err : &e);
}

MCPDEF mcp_status mcp_host_get_prompt(mcp_host *h, const char *qualified, const char *args_json,
                                      mcp_json_doc **result, mcp_error *err)
{
    mcp_error e;
    mcp_host_call *hc = mcp__host_send_named(h, MCP_HOST_PROMPTS, qualified, args_json, NULL, err ? err : &e);
    return mcp__host_block(h, hc, result, err ? err : &e);
}

MCPDEF mcp_status mcp_host_read_resource(mcp_host *h, const char *uri, mcp_json_doc **result, mcp_error *err)
{
    mcp_error e;
    mcp_host_call *hc = mcp__host_send_named(h, MCP_HOST_RESOURCES, uri, NULL, NULL, err ? err : &e);
    return mcp__host_block(h, hc, result, err ? err : &e);
}

#endif /* MCP_NO_HOST */

#endif /* a transport */

#ifdef __cplusplus
}
#endif

#endif /* MCP_IMPLEMENTATION */

/*
---------------------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
---------------------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the mcp.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
---------------------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this software,
either in source code form or as a compiled binary, for any purpose, commercial or
non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this software
dedicate any and all copyright interest in the software to the public domain. We make this
dedication for the benefit of the public at large and to the detriment of our heirs and
successors. We intend this dedication to be an overt act of relinquishment in perpetuity of
all present and future rights to this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
---------------------------------------------------------------------------------------------
*/
