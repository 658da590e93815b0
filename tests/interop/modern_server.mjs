// modern_server.mjs - an MCP server written on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, pinned in package.json), the "modern server" of
// tests/interop/interop.c.
//
// SDK v2 implements protocol revision 2026-07-28 (stateless: per-request _meta,
// server/discover, input_required results instead of server->client requests) and, from the
// same factory, the 2025 era (initialize handshake): serveStdio() picks the era from the
// connection's first message and pins it; createMcpHandler() answers each HTTP request in
// the era it claims (2025-era traffic goes to a stateless legacy fallback). Handlers are
// written once: an input_required return is sent as is on 2026-07-28 and fulfilled by the
// SDK's legacy shim (a real elicitation/create request) on a 2025-era connection.
//
//   node modern_server.mjs stdio            MCP over stdin/stdout (the default)
//   node modern_server.mjs http [PORT]      Streamable HTTP on http://127.0.0.1:PORT/mcp
//                                           (PORT from argv, else $PORT, else 3000)
//
// What it offers:
//   tools      echo {message}            -> "Echo: <message>"
//              add {a, b}                -> "The sum of A and B is C." + structuredContent {sum}
//              ask-name {greeting?}      -> input_required: one form elicitation (key "user");
//                                           on the retry "<greeting>, <name>! ..." with the
//                                           requestState it minted checked
//              survey {}                 -> two input_required rounds: name, then colour (the
//                                           name rides in requestState between them)
//              count {steps}             -> progress per step (when the request has a
//                                           progressToken) and an info log line per step
//              slow {ms}                 -> waits; "slow: request ID cancelled" on stderr if the
//                                           request is cancelled first
//              where {region, query?}    -> "region=R query=Q"; region is marked
//                                           x-mcp-header "Region" (Mcp-Param-Region on HTTP)
//              changed {}                -> sends tools, resources and prompts list_changed
//                                           (to the subscriptions/listen streams that asked)
//              research {topic, ...}     -> only with MODERN_SERVER_TASKS=1: a task of the
//                                           2026-07-28 tasks extension (see addTasks below)
//   resource   modern://info             text/plain
//   template   modern://greeting/{name}  text/plain
//   prompt     greet {name, style?}      one user message
//
// Capabilities: tools, resources, prompts and logging (log level per request in _meta).
// On HTTP it serves the endpoint /mcp (other paths: 404; GET and DELETE there: the SDK's 405),
// checks Host and Origin (localhost only), prints "mcp-h-modern-server listening on
// http://127.0.0.1:PORT/mcp" when ready, and exits on SIGTERM/SIGINT. On stdio it exits when
// stdin closes. Diagnostics go to stderr; MODERN_SERVER_VERBOSE=1 adds a line per server
// instance made ("new modern instance" / "new legacy instance") and, on HTTP, per request.

import http from 'node:http';
import process from 'node:process';
import {
    McpServer,
    ProtocolError,
    ProtocolErrorCode,
    ResourceTemplate,
    acceptedContent,
    createMcpHandler,
    fromJsonSchema,
    hostHeaderValidationResponse,
    inputRequired,
    inputResponse,
    localhostAllowedHostnames,
    localhostAllowedOrigins,
    originValidationResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const NAME = 'mcp-h-modern-server';
const VERSION = '1.0.0';

const nameSchema = {
    type: 'object',
    properties: { name: { type: 'string', title: 'Your name', description: 'What should I call you?' } },
    required: ['name']
};
const colourSchema = {
    type: 'object',
    properties: {
        colour: { type: 'string', title: 'Favourite colour', enum: ['red', 'green', 'blue'] }
    },
    required: ['colour']
};

// requestState: opaque to the client, echoed back verbatim. Base64 JSON here; a real server
// that lets it steer anything would integrity-protect it (createRequestStateCodec).
const mint = obj => Buffer.from(JSON.stringify(obj), 'utf8').toString('base64url');
function unmint(s) {
    if (typeof s !== 'string') return undefined;
    try {
        return JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    } catch {
        return undefined;
    }
}

const text = t => ({ content: [{ type: 'text', text: t }] });

/** One McpServer with everything registered: the factory both serving entries call. */
function makeServer(ctx) {
    const server = new McpServer(
        { name: NAME, version: VERSION, title: 'mcp.h interop server (SDK v2)' },
        {
            capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
            instructions: 'A small server for interop tests: echo, add, ask-name and survey (elicitation), ' +
                'count, slow, where, modern://info, modern://greeting/{name}, and the greet prompt.'
        }
    );

    server.registerTool(
        'echo',
        {
            title: 'Echo',
            description: 'Echoes the message back',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { message: { type: 'string', description: 'What to echo' } },
                required: ['message']
            })
        },
        async ({ message }) => text(`Echo: ${message}`)
    );

    server.registerTool(
        'add',
        {
            title: 'Add',
            description: 'Adds two numbers',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { a: { type: 'number' }, b: { type: 'number' } },
                required: ['a', 'b']
            }),
            outputSchema: fromJsonSchema({
                type: 'object',
                properties: { sum: { type: 'number' } },
                required: ['sum']
            })
        },
        async ({ a, b }) => ({
            content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}.` }],
            structuredContent: { sum: a + b }
        })
    );

    server.registerTool(
        'ask-name',
        {
            title: 'Ask the user for their name',
            description: 'Asks the user for their name through a form elicitation (input_required), then greets them',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { greeting: { type: 'string', description: 'How to greet (default Hello)' } }
            })
        },
        async ({ greeting }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'user');
            if (view.kind === 'elicit' && view.action !== 'accept')
                return text(`The user did not answer (${view.action}).`);
            const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user');
            const state = unmint(ctx.mcpReq.requestState());
            if (!answer || typeof answer.name !== 'string' || !state || state.tool !== 'ask-name') {
                return inputRequired({
                    inputRequests: {
                        user: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema })
                    },
                    requestState: mint({ tool: 'ask-name', round: 1 })
                });
            }
            return text(`${greeting || 'Hello'}, ${answer.name}! (answer received in round ${state.round + 1}, ` +
                `requestState echoed intact)`);
        }
    );

    server.registerTool(
        'survey',
        {
            title: 'Two-question survey',
            description: 'Asks for a name, then a favourite colour: two input_required rounds',
            inputSchema: fromJsonSchema({ type: 'object', properties: {} })
        },
        async (_args, ctx) => {
            const state = unmint(ctx.mcpReq.requestState()) || {};
            const responses = ctx.mcpReq.inputResponses;
            if (state.step === 'colour') {
                const c = acceptedContent(responses, 'colour');
                if (c && typeof c.colour === 'string')
                    return text(`Survey: ${state.name} likes ${c.colour}.`);
            } else {
                const n = acceptedContent(responses, 'name');
                if (n && typeof n.name === 'string')
                    return inputRequired({
                        inputRequests: {
                            colour: inputRequired.elicit({
                                message: `Thanks, ${n.name}. Your favourite colour?`,
                                requestedSchema: colourSchema
                            })
                        },
                        requestState: mint({ step: 'colour', name: n.name })
                    });
            }
            return inputRequired({
                inputRequests: {
                    name: inputRequired.elicit({ message: 'Survey, question 1: your name?', requestedSchema: nameSchema })
                },
                requestState: mint({ step: 'name' })
            });
        }
    );

    server.registerTool(
        'count',
        {
            title: 'Count with progress',
            description: 'Counts to steps, reporting progress (when asked for) and logging each step at info',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { steps: { type: 'integer', minimum: 1, maximum: 20 } },
                required: ['steps']
            })
        },
        async ({ steps }, ctx) => {
            const token = ctx.mcpReq._meta?.progressToken;
            for (let i = 1; i <= steps; i++) {
                await new Promise(r => setTimeout(r, 20));
                if (token !== undefined)
                    await ctx.mcpReq.notify({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` }
                    });
                await ctx.mcpReq.log('info', `count: step ${i}`, 'count');
            }
            return text(`Counted to ${steps}.`);
        }
    );

    server.registerTool(
        'slow',
        {
            title: 'Slow',
            description: 'Waits ms milliseconds; says on stderr when it was cancelled',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { ms: { type: 'integer', minimum: 0, maximum: 60000 } },
                required: ['ms']
            })
        },
        async ({ ms }, ctx) => {
            const signal = ctx.mcpReq.signal;
            const done = await new Promise(resolve => {
                const t = setTimeout(() => resolve(true), ms);
                signal.addEventListener('abort', () => {
                    clearTimeout(t);
                    resolve(false);
                });
            });
            if (!done) process.stderr.write(`[${NAME}] slow: request ${ctx.mcpReq.id} cancelled\n`);
            return text(done ? `Waited ${ms} ms.` : 'Cancelled.');
        }
    );

    server.registerTool(
        'where',
        {
            title: 'Where',
            description: 'Answers with its region, which Streamable HTTP clients mirror into Mcp-Param-Region',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    region: { type: 'string', description: 'A region', 'x-mcp-header': 'Region' },
                    query: { type: 'string' }
                },
                required: ['region']
            })
        },
        async ({ region, query }) => text(`region=${region} query=${query ?? ''}`)
    );

    server.registerTool(
        'changed',
        {
            title: 'Changed',
            description: 'Tells listeners that the tool, resource and prompt lists changed',
            inputSchema: fromJsonSchema({ type: 'object', properties: {} })
        },
        async () => {
            server.sendToolListChanged();
            server.sendResourceListChanged();
            server.sendPromptListChanged();
            return text('Sent list_changed for tools, resources and prompts.');
        }
    );

    server.registerResource(
        'info',
        'modern://info',
        { title: 'About this server', description: 'A static text resource', mimeType: 'text/plain' },
        async uri => ({
            contents: [
                { uri: uri.href, mimeType: 'text/plain', text: `${NAME} ${VERSION}: served by @modelcontextprotocol/server v2` }
            ]
        })
    );

    server.registerResource(
        'greeting',
        new ResourceTemplate('modern://greeting/{name}', { list: undefined }),
        { title: 'A greeting', description: 'A greeting for {name}', mimeType: 'text/plain' },
        async (uri, { name }) => ({
            contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Greetings, ${decodeURIComponent(name)}!` }]
        })
    );

    server.registerPrompt(
        'greet',
        {
            title: 'Greet someone',
            description: 'A prompt that greets someone by name',
            argsSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    name: { type: 'string', description: 'Who to greet' },
                    style: { type: 'string', description: 'formal or casual' }
                },
                required: ['name']
            })
        },
        ({ name, style }) => ({
            description: `Greeting for ${name}`,
            messages: [
                {
                    role: 'user',
                    content: {
                        type: 'text',
                        text: style === 'formal' ? `Please greet ${name} formally.` : `Say hi to ${name}.`
                    }
                }
            ]
        })
    );

    if (process.env.MODERN_SERVER_TASKS) addTasks(server);
    if (process.env.MODERN_SERVER_VERBOSE) process.stderr.write(`[${NAME}] new ${ctx.era} instance\n`);
    return server;
}

// ---- tasks (MODERN_SERVER_TASKS=1): the 2026-07-28 tasks extension, on top of the SDK ----------
// SDK v2 (2.4.0) has no tasks of its own: no task store, no registerToolTask, no tasks/get in
// its 2026-07-28 codec (only the 2025-11-25 schemas). What it has: a tools/call handler may
// return a resultType other than "complete" (sent as is), tasks/get and tasks/cancel (names
// its 2025 codec knows) may be registered with a schema of the server's own, and so may
// tasks/update; on Streamable HTTP it checks that Mcp-Name mirrors params.taskId for the three.
// On that, with the extension declared in server/discover's capabilities:
//   research {topic, steps?, ambiguous?}  a task when the request's clientCapabilities declare
//       the extension, else the report at once. Each tasks/get moves it on: working "stage K of
//       N" (N = steps, default 3); ambiguous: after the first stage input_required with
//       inputRequests {"clarify": a form elicitation of "interpretation"}, shown until tasks/update
//       answers it; then completed with the result "Report on TOPIC[ (INTERPRETATION)] after N
//       stages". pollIntervalMs 100, ttlMs 60000.
//   tasks/get (the task, result inlined), tasks/update ({}), tasks/cancel ({}; the task is
//   "cancelled"); an unknown id: -32602. "[modern-server] task ID: tasks/cancel" on stderr.
// The tasks live in the process, shared by the per-request instances of HTTP.

const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const researchTasks = new Map();
let researchSeq = 0;
const clarifySchema = {
    type: 'object',
    properties: { interpretation: { type: 'string', title: 'Which meaning?', enum: ['snake', 'language'] } },
    required: ['interpretation']
};

function addTasks(server) {
    const now = () => new Date().toISOString();
    const view = t => ({
        taskId: t.id, status: t.status, statusMessage: t.message, createdAt: t.created, lastUpdatedAt: t.updated,
        ttlMs: 60000, pollIntervalMs: 100
    });
    const report = t => text(`Report on ${t.topic}${t.answer ? ` (${t.answer})` : ''} after ${t.steps} stages`);
    const find = params => {
        const t = researchTasks.get(params.taskId);
        if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${params.taskId}`);
        return t;
    };
    const set = (t, status, message) => { t.status = status; t.message = message; t.updated = now(); };
    server.server.registerCapabilities({ extensions: { [TASKS_EXT]: {} } });
    server.registerTool(
        'research',
        {
            title: 'Research (a task)',
            description: 'A task of the 2026-07-28 tasks extension, polled with tasks/get',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { topic: { type: 'string' }, steps: { type: 'integer', minimum: 1, maximum: 20 },
                              ambiguous: { type: 'boolean' } },
                required: ['topic']
            })
        },
        async ({ topic, steps, ambiguous }, ctx) => {
            const caps = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'];
            const t = { id: `research-${++researchSeq}`, topic, steps: steps ?? 3, ambiguous: !!ambiguous, polls: 0,
                        created: now(), updated: now(), status: 'working', message: 'queued' };
            if (!caps?.extensions?.[TASKS_EXT]) return report(t);
            researchTasks.set(t.id, t);
            return { resultType: 'task', ...view(t) };
        }
    );
    const idParams = fromJsonSchema({ type: 'object', properties: { taskId: { type: 'string' } }, required: ['taskId'] });
    server.server.setRequestHandler('tasks/get', { params: idParams }, async params => {
        const t = find(params);
        const out = () => ({ ...view(t), ...(t.status === 'completed' ? { result: report(t) } : {}),
                             ...(t.status === 'input_required' ? { inputRequests: {
                                 clarify: inputRequired.elicit({ message: `Which ${t.topic} do you mean?`,
                                                                 requestedSchema: clarifySchema }) } } : {}) });
        if (t.status === 'cancelled' || t.status === 'completed') return out();
        if (t.ambiguous && !t.answer && t.polls >= 1) {
            set(t, 'input_required', 'a clarification is needed');
            return out();
        }
        t.polls++;
        if (t.polls > t.steps) set(t, 'completed', 'done');
        else set(t, 'working', `stage ${t.polls} of ${t.steps}`);
        return out();
    });
    server.server.setRequestHandler(
        'tasks/update',
        { params: idParams },
        async (params, ctx) => {          // the SDK hands inputResponses over apart, as for input_required
            const t = find(params);
            const answer = acceptedContent(ctx.mcpReq.inputResponses, 'clarify');
            const seen = inputResponse(ctx.mcpReq.inputResponses, 'clarify');
            if (answer && typeof answer.interpretation === 'string') t.answer = answer.interpretation;
            else if (seen.kind === 'elicit') t.answer = `(${seen.action})`;
            if (t.answer && t.status === 'input_required') set(t, 'working', 'clarified');
            return {};
        }
    );
    server.server.setRequestHandler('tasks/cancel', { params: idParams }, async params => {
        const t = find(params);
        process.stderr.write(`[${NAME}] task ${t.id}: tasks/cancel\n`);
        if (t.status !== 'completed') set(t, 'cancelled', 'cancelled at the client\'s request');
        return {};
    });
}

const onerror = err => process.stderr.write(`[${NAME}] ${err && err.stack ? err.stack : err}\n`);

// ---- Streamable HTTP: node:http in front of the SDK's web-standard handler ----------------------

function serveHttp(port) {
    const handler = createMcpHandler(makeServer, { onerror });
    const hosts = localhostAllowedHostnames();
    const origins = localhostAllowedOrigins();

    const server = http.createServer(async (req, res) => {
        const ac = new AbortController();
        res.on('close', () => {
            if (!res.writableFinished) ac.abort();   // the client went away: cancels the exchange
        });
        try {
            const url = new URL(req.url, `http://${req.headers.host || `127.0.0.1:${port}`}`);
            if (url.pathname !== '/mcp') {
                res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the MCP endpoint is /mcp\n');
                return;
            }
            const headers = new Headers();
            for (const [k, v] of Object.entries(req.headers)) {
                if (Array.isArray(v)) for (const one of v) headers.append(k, one);
                else if (v !== undefined) headers.set(k, v);
            }
            let body;
            if (req.method !== 'GET' && req.method !== 'HEAD') {
                const chunks = [];
                for await (const c of req) chunks.push(c);
                body = Buffer.concat(chunks);
            }
            const request = new Request(url, { method: req.method, headers, body, signal: ac.signal });
            const response =
                hostHeaderValidationResponse(request, hosts) ??
                originValidationResponse(request, origins) ??
                (await handler.fetch(request));
            const out = {};
            response.headers.forEach((v, k) => {
                out[k] = v;
            });
            res.writeHead(response.status, out);
            if (process.env.MODERN_SERVER_VERBOSE) {
                let method = '-';
                try {
                    method = JSON.parse(body.toString('utf8')).method || '(response)';
                } catch {}
                const type = out['content-type'] || '';
                process.stderr.write(`[${NAME}] ${req.method} ${method} -> ${response.status} ${type}\n`);
            }
            if (!response.body) {
                res.end();
                return;
            }
            const reader = response.body.getReader();
            res.on('close', () => reader.cancel().catch(() => {}));
            for (;;) {
                const { done, value } = await reader.read();
                if (done) break;
                if (!res.write(value)) await new Promise(r => res.once('drain', r));
            }
            res.end();
        } catch (err) {
            if (ac.signal.aborted) return;
            onerror(err);
            if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
            res.end();
        }
    });
    server.keepAliveTimeout = 5000;
    server.listen(port, '127.0.0.1', () => {
        process.stdout.write(`${NAME} listening on http://127.0.0.1:${server.address().port}/mcp\n`);
    });
    const stop = sig => {
        process.stderr.write(`[${NAME}] ${sig}: closing\n`);
        server.close();
        server.closeAllConnections?.();
        handler.close().finally(() => process.exit(0));
        setTimeout(() => process.exit(0), 1000).unref();
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
}

// ---- main -------------------------------------------------------------------------------------

const mode = process.argv[2] || 'stdio';
if (mode === 'stdio') {
    serveStdio(makeServer, { onerror });
} else if (mode === 'http') {
    const port = Number(process.argv[3] || process.env.PORT || 3000);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`${NAME}: bad port "${process.argv[3] || process.env.PORT}"\n`);
        process.exit(2);
    }
    serveHttp(port);
} else {
    process.stderr.write(`usage: node modern_server.mjs [stdio | http [PORT]]\n`);
    process.exit(2);
}
