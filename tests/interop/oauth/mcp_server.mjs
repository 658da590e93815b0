// mcp_server.mjs - an MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0, pinned in tests/interop/package.json) that only answers requests carrying an access
// token from tests/interop/oauth/as.mjs: the protected resource of tests/interop/oauth.sh.
//
//   node mcp_server.mjs            Streamable HTTP on http://127.0.0.1:$MCP_PORT/mcp
//
// Environment:
//   MCP_PORT        the port (required)
//   MCP_PUBLIC_URL  the URL clients reach this server at, when that is not
//                   http://127.0.0.1:$MCP_PORT/mcp (the default): e.g. https://127.0.0.1:PORT/mcp
//                   behind tests/interop/tls_relay.mjs. It is the resource: the URL its
//                   protected resource metadata names (and points to in WWW-Authenticate) and
//                   the audience a token must have. Its path must be /mcp.
//   AS_ISSUER       the authorization server's issuer, http://127.0.0.1:PORT (required)
//   AS_RS_SECRET    this server's client secret at the authorization server, for introspection
//   AS_EVENTS       a file to append one line per decision to ("rs accepted ...", "rs refused
//                   ..."); never a token
//   MCP_VERBOSE=1   the same lines on stderr
//
// The SDK does the resource server's work: requireBearerAuth() answers a request without a
// valid token with 401 and `WWW-Authenticate: Bearer error="invalid_token", resource_metadata=
// ".../.well-known/oauth-protected-resource/mcp"`, checks the token's audience (the
// expectedResource: this server's URL), its expiry and its scope ("mcp"); oauthMetadataResponse()
// serves the protected resource metadata (RFC 9728: resource = this server's URL,
// authorization_servers = [AS_ISSUER], scopes_supported = ["mcp"]). The token itself is checked
// by the verifier below, which asks the authorization server's introspection endpoint (RFC
// 7662): its tokens are opaque, and a revoked grant is refused at once.
//
// Tools: echo {message} -> "Echo: <message>"; whoami {} -> "You are <sub> through <client_id>".
// Prints "mcp-h-oauth-mcp-server listening on http://127.0.0.1:PORT/mcp" when ready (followed by
// " for MCP_PUBLIC_URL" when that is set); exits on SIGTERM/SIGINT.
import fs from 'node:fs';
import http from 'node:http';
import process from 'node:process';
import {
    McpServer,
    OAuthError,
    OAuthErrorCode,
    createMcpHandler,
    fromJsonSchema,
    getOAuthProtectedResourceMetadataUrl,
    hostHeaderValidationResponse,
    localhostAllowedHostnames,
    oauthMetadataResponse,
    requireBearerAuth
} from '@modelcontextprotocol/server';

const NAME = 'mcp-h-oauth-mcp-server';
const port = Number(process.env.MCP_PORT);
const issuer = process.env.AS_ISSUER;
const secret = process.env.AS_RS_SECRET;
if (!Number.isInteger(port) || port <= 0 || !issuer || !secret) {
    process.stderr.write(`${NAME}: set MCP_PORT, AS_ISSUER and AS_RS_SECRET\n`);
    process.exit(2);
}
const local = `http://127.0.0.1:${port}/mcp`;
const resource = new URL(process.env.MCP_PUBLIC_URL || local);
if (resource.pathname !== '/mcp') {
    process.stderr.write(`${NAME}: MCP_PUBLIC_URL must end in /mcp\n`);
    process.exit(2);
}

function event(line) {
    if (process.env.AS_EVENTS) fs.appendFileSync(process.env.AS_EVENTS, `rs ${line}\n`);
    if (process.env.MCP_VERBOSE) process.stderr.write(`[${NAME}] ${line}\n`);
}

const asMeta = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
if (!asMeta.introspection_endpoint) throw new Error('the authorization server has no introspection endpoint');

// RFC 7662 introspection as this server's own client (client_secret_basic).
const verifier = {
    async verifyAccessToken(token) {
        const res = await fetch(asMeta.introspection_endpoint, {
            method: 'POST',
            headers: {
                authorization: 'Basic ' + Buffer.from(`mcp-resource-server:${secret}`).toString('base64'),
                'content-type': 'application/x-www-form-urlencoded'
            },
            body: new URLSearchParams({ token, token_type_hint: 'access_token' })
        });
        if (res.status !== 200) throw new OAuthError(OAuthErrorCode.ServerError, `introspection answered ${res.status}`);
        const j = await res.json();
        if (!j.active) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token is not active (unknown, expired or revoked)');
        if (j.iss !== issuer) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token was issued by another server');
        const aud = Array.isArray(j.aud) ? j.aud : j.aud ? [j.aud] : [];
        return {
            token,
            clientId: j.client_id,
            scopes: typeof j.scope === 'string' ? j.scope.split(' ') : [],
            expiresAt: j.exp,
            resource: aud.length === 1 ? new URL(aud[0]) : undefined,
            extra: { sub: j.sub }
        };
    }
};

const gate = requireBearerAuth({
    verifier,
    expectedResource: resource,
    requiredScopes: ['mcp'],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource)
});
const metadata = {
    oauthMetadata: asMeta,
    resourceServerUrl: resource,
    scopesSupported: ['mcp'],
    resourceName: 'mcp.h OAuth interop server',
    dangerouslyAllowInsecureIssuerUrl: true      // http://127.0.0.1: a test on loopback only
};

const text = t => ({ content: [{ type: 'text', text: t }] });

function makeServer() {
    const server = new McpServer({ name: NAME, version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool(
        'echo',
        {
            description: 'Echoes the message back',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { message: { type: 'string' } },
                required: ['message']
            })
        },
        async ({ message }) => text(`Echo: ${message}`)
    );
    server.registerTool(
        'whoami',
        { description: 'Says who the access token belongs to', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
        async (_args, ctx) => {
            const a = ctx.http?.authInfo;
            return text(a ? `You are ${a.extra?.sub} through ${a.clientId}` : 'No token information');
        }
    );
    return server;
}

const handler = createMcpHandler(makeServer, { onerror: err => process.stderr.write(`[${NAME}] ${err && err.stack ? err.stack : err}\n`) });
const hosts = localhostAllowedHostnames();

async function answer(request) {
    const refused = hostHeaderValidationResponse(request, hosts);
    if (refused) return refused;
    const doc = oauthMetadataResponse(request, metadata);
    if (doc) {
        event(`metadata ${new URL(request.url).pathname} -> ${doc.status}`);
        return doc;
    }
    if (new URL(request.url).pathname !== '/mcp') return new Response('Not found\n', { status: 404 });
    const auth = await gate(request);
    if (auth instanceof Response) {
        event(`refused ${request.method} ${request.headers.get('authorization') ? 'with a token' : 'without a token'} -> ${auth.status}`);
        return auth;
    }
    event(`accepted ${request.method} client=${auth.clientId}`);
    return handler.fetch(request, { authInfo: auth });
}

const server = http.createServer(async (req, res) => {
    const ac = new AbortController();
    res.on('close', () => {
        if (!res.writableFinished) ac.abort();
    });
    try {
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
        const url = new URL(req.url, resource.origin);
        const response = await answer(new Request(url, { method: req.method, headers, body, signal: ac.signal }));
        const out = {};
        response.headers.forEach((v, k) => {
            out[k] = v;
        });
        res.writeHead(response.status, out);
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
        process.stderr.write(`[${NAME}] ${err && err.stack ? err.stack : err}\n`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
    }
});
server.keepAliveTimeout = 5000;
server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`${NAME} listening on ${local}${process.env.MCP_PUBLIC_URL ? ` for ${resource.href}` : ''}\n`);
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
