// as.mjs - a real OAuth 2.1 / OpenID Connect authorization server for tests/interop/oauth.sh:
// oidc-provider (pinned in tests/interop/oauth/package.json, a certified OpenID Connect
// provider), run with the pinned Node 22 (node_modules/.bin/node) it needs.
//
//   node as.mjs                    listens on http://127.0.0.1:$AS_PORT (the issuer)
//
// Environment:
//   AS_PORT            the port (required)
//   MCP_RESOURCE       the MCP server's URL, the only resource (RFC 8707) it issues tokens for;
//                      several URLs separated by spaces: each is a resource it issues tokens
//                      for (audience: that URL), the first is the default (the https variant
//                      of oauth.sh adds the server's https:// URL behind the TLS relay)
//   AS_ACCESS_TTL      access token lifetime in seconds (default 4: the expiry test waits it out)
//   AS_RS_SECRET       the client secret of "mcp-resource-server", the MCP server's own client,
//                      which is only allowed to introspect tokens
//   AS_EVENTS          a file to append one line per event to (grants, registrations,
//                      revocations, logins, consents, errors): what the test reads to know
//                      what the authorization server saw. Never a token or a code.
//   AS_VERBOSE=1       the same lines on stderr
//
// What it is configured with:
//   dynamic client registration (RFC 7591), open: no initial access token;
//   PKCE required for every client (oidc-provider 9 knows only S256);
//   resource indicators: the URLs of MCP_RESOURCE only (any other resource: invalid_target);
//     its access tokens are opaque (the MCP server asks the introspection endpoint, RFC 7662:
//     a revoked grant is refused at once, and the server needs no key material; a JWT would
//     stay valid until it expires) with audience the resource asked for, scope "mcp",
//     lifetime AS_ACCESS_TTL;
//   refresh tokens, rotated on every use, for every client registered for the refresh_token
//     grant (as OAuth 2.1 has it; see issueRefreshToken below);
//   the iss authorization response parameter (RFC 9207; oidc-provider always sends it and
//     says so in its metadata: authorization_response_iss_parameter_supported);
//   the revocation endpoint (RFC 7009): revoking a refresh token revokes its whole grant;
//   one account, "alice"; the login and consent pages are oidc-provider's own development
//     interactions (devInteractions): a user (here tests/interop/oauth/browser.mjs) has to
//     submit the sign-in form and then the consent form. Nothing is consented automatically.
// Prints "mcp-h-oauth-as listening on ISSUER" when ready; exits on SIGTERM/SIGINT.
import fs from 'node:fs';
import process from 'node:process';
import Provider, { errors } from 'oidc-provider';

const NAME = 'mcp-h-oauth-as';
const port = Number(process.env.AS_PORT);
const resources = (process.env.MCP_RESOURCE || '').split(' ').filter(Boolean);
const ttl = Number(process.env.AS_ACCESS_TTL || 4);
const rsSecret = process.env.AS_RS_SECRET;
if (!Number.isInteger(port) || port <= 0 || !resources.length || !rsSecret || !(ttl > 0)) {
    process.stderr.write(`${NAME}: set AS_PORT, MCP_RESOURCE and AS_RS_SECRET (AS_ACCESS_TTL optional)\n`);
    process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

function event(line) {
    if (process.env.AS_EVENTS) fs.appendFileSync(process.env.AS_EVENTS, `as ${line}\n`);
    if (process.env.AS_VERBOSE) process.stderr.write(`[${NAME}] ${line}\n`);
}

const accounts = { alice: { sub: 'alice', name: 'Alice Example' } };

const configuration = {
    clients: [
        {
            client_id: 'mcp-resource-server',
            client_secret: rsSecret,
            grant_types: [],
            response_types: [],
            redirect_uris: [],
            token_endpoint_auth_method: 'client_secret_basic'
        }
    ],
    async findAccount(_ctx, id) {
        if (!accounts[id]) return undefined;
        return { accountId: id, async claims() { return { ...accounts[id] }; } };
    },
    scopes: ['openid', 'offline_access', 'mcp'],
    claims: { openid: ['sub'], profile: ['name'] },
    features: {
        devInteractions: { enabled: true },
        registration: { enabled: true },
        revocation: { enabled: true },
        introspection: {
            enabled: true,
            // only the MCP server's own client may introspect
            allowedPolicy: (_ctx, client) => client.clientId === 'mcp-resource-server'
        },
        resourceIndicators: {
            enabled: true,
            defaultResource: () => resources[0],
            useGrantedResource: () => true,
            getResourceServerInfo(_ctx, indicator) {
                if (!resources.includes(indicator)) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
                return { scope: 'mcp', audience: indicator, accessTokenFormat: 'opaque', accessTokenTTL: ttl };
            }
        }
    },
    pkce: { required: () => true },
    // OAuth 2.1: a refresh token for every client registered for the refresh_token grant.
    // (oidc-provider's default wants the OpenID Connect offline_access scope, which it keeps
    // only with prompt=consent, OpenID Connect Core section 11; mcp.h asks for offline_access
    // without prompt=consent, so with the default it would get no refresh token.)
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    rotateRefreshToken: () => true,
    ttl: {
        AccessToken: ttl,
        AuthorizationCode: 60,
        RefreshToken: 3600,
        Grant: 3600,
        Interaction: 600,
        Session: 3600,
        IdToken: 3600
    },
    cookies: { keys: ['mcp-h interop test key, not a secret'] },
    renderError(ctx, out) {
        ctx.type = 'html';
        ctx.body = `<!DOCTYPE html><html><body><h1>Error</h1><p>${String(out.error)}: ${String(out.error_description || '')}</p></body></html>`;
    }
};

const provider = new Provider(issuer, configuration);

provider.on('registration_create.success', (_ctx, client) =>
    event(`registered client=${client.clientId} application_type=${client.applicationType} redirect_uris=${client.redirectUris.join(',')} auth=${client.clientAuthMethod}`));
provider.on('registration_create.error', (_ctx, err) => event(`registration-error ${err.error}: ${err.error_description}`));
provider.on('authorization.accepted', ctx => {
    const p = ctx.oidc.params;
    event(`authorize client=${p.client_id} resource=${p.resource} scope=${p.scope} pkce=${p.code_challenge_method} state=${p.state ? 'yes' : 'no'}`);
});
provider.on('authorization.error', (_ctx, err) => event(`authorize-error ${err.error}: ${err.error_description}`));
provider.on('interaction.started', (_ctx, prompt) => event(`interaction ${prompt.name}`));
provider.on('interaction.ended', ctx => event(`interaction-ended account=${ctx.oidc.session?.accountId || '-'}`));
provider.on('authorization.success', ctx => event(`code-issued client=${ctx.oidc.client?.clientId}`));
provider.on('grant.success', ctx => {
    const p = ctx.oidc.params;
    event(`grant ${p.grant_type} client=${ctx.oidc.client.clientId} resource=${p.resource || '-'}`);
});
provider.on('grant.error', (ctx, err) => event(`grant-error ${ctx.oidc.params?.grant_type} ${err.error}`));
provider.on('revocation.error', (_ctx, err) => event(`revocation-error ${err.error}`));
provider.on('grant.revoked', () => event('grant-revoked'));   // a token revoked: its whole grant
provider.on('introspection.error', (_ctx, err) => event(`introspection-error ${err.error}`));
provider.on('server_error', (_ctx, err) => event(`server-error ${err && err.stack ? err.stack : err}`));

const server = provider.listen(port, '127.0.0.1', () => {
    process.stdout.write(`${NAME} listening on ${issuer}\n`);
});
const stop = sig => {
    process.stderr.write(`[${NAME}] ${sig}: closing\n`);
    server.close();
    server.closeAllConnections?.();
    setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
