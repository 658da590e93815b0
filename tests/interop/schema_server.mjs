// schema_server.mjs - a small stdio MCP server on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, pinned in package.json) for tests/interop/mcpc_features.sh:
// tools whose input schemas use what the reference servers' schemas do not (anyOf, oneOf,
// type lists, $ref to $defs and to definitions, integer enums), and a tool that never answers.
//
//   node schema_server.mjs [--tick MS]      MCP over stdin/stdout; exits when stdin closes
//
// What it offers:
//   tools   args {...}     -> "ARGS " + the arguments it received, as compact JSON (the SDK
//                             validates them against the schema first, so a value of the wrong
//                             type is refused with -32602)
//           hang {}        -> never answers (not even when cancelled)
//
// args' properties (none required):
//   n integer, x number, flag boolean, s string, colour enum of strings, level integer enum
//   [1, 2, 3], tags array of strings, obj object, ab anyOf [string, boolean], os oneOf [string,
//   integer], tl type ["string", "number"], rs $ref #/$defs/name (a string), rd $ref
//   #/definitions/count (an integer).
// The schema allows other properties (no additionalProperties: false), so a key it does not
// name reaches the tool as sent.
//
// --tick MS: every MS milliseconds a log message of its own, "tick N (LEVEL)", LEVEL info and
// warning in turn, through the SDK's sendLoggingMessage (which honours logging/setLevel): what
// a client that stays connected (mcpc watch) sees without asking for anything. For the 2025
// era (initialize); in 2026-07-28 a server sends nothing unasked.

import process from 'node:process';
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const tickAt = process.argv.indexOf('--tick');
const tick = tickAt > 0 ? Number(process.argv[tickAt + 1]) : 0;
if (tickAt > 0 && !(tick > 0)) {
    process.stderr.write('usage: node schema_server.mjs [--tick MS]\n');
    process.exit(2);
}

const argsSchema = {
    type: 'object',
    properties: {
        n: { type: 'integer', description: 'An integer' },
        x: { type: 'number', description: 'A number' },
        flag: { type: 'boolean', description: 'A boolean' },
        s: { type: 'string', description: 'A string' },
        colour: { type: 'string', enum: ['red', 'green', 'blue'], description: 'A colour' },
        level: { type: 'integer', enum: [1, 2, 3], description: 'An integer enum' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Strings' },
        obj: { type: 'object', description: 'An object' },
        ab: { anyOf: [{ type: 'string' }, { type: 'boolean' }], description: 'anyOf string, boolean' },
        os: { oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'oneOf string, integer' },
        tl: { type: ['string', 'number'], description: 'type list string, number' },
        rs: { $ref: '#/$defs/name' },
        rd: { $ref: '#/definitions/count' }
    },
    $defs: { name: { type: 'string', description: 'A name ($defs)' } },
    definitions: { count: { type: 'integer', description: 'A count (definitions)' } }
};

function makeServer() {
    const server = new McpServer(
        { name: 'mcp-h-schema-server', version: '1.0.0' },
        { capabilities: { tools: {}, logging: {} } }
    );
    server.registerTool(
        'args',
        {
            description: 'Answers with the arguments it received, as JSON',
            inputSchema: fromJsonSchema(argsSchema)
        },
        async args => ({ content: [{ type: 'text', text: 'ARGS ' + JSON.stringify(args) }] })
    );
    server.registerTool(
        'hang',
        {
            description: 'Never answers',
            inputSchema: fromJsonSchema({ type: 'object', properties: {} })
        },
        () => new Promise(() => {})
    );
    if (tick > 0) {
        let n = 0;
        const timer = setInterval(() => {
            if (!server.isConnected()) return;
            n++;
            const level = n % 2 ? 'info' : 'warning';
            server.sendLoggingMessage({ level, logger: 'tick', data: `tick ${n} (${level})` }).catch(() => {});
        }, tick);
        timer.unref();
    }
    return server;
}

serveStdio(makeServer, { onerror: err => process.stderr.write(`[schema-server] ${err?.stack || err}\n`) });
