// revoke.mjs - revokes a refresh token at the authorization server's revocation endpoint
// (RFC 7009), as the test's stand-in for a user or an administrator withdrawing access.
//
//   node revoke.mjs ISSUER CLIENT_ID       the token comes on stdin (never on the command line)
//
// Finds the endpoint in ISSUER's metadata, POSTs token, token_type_hint=refresh_token and
// client_id (a public client authenticates with its client_id alone). oidc-provider then
// revokes the token's whole grant: the access tokens issued with it too. Prints one line on
// stderr; exits 0 when the endpoint answered 200.
import process from 'node:process';

const [issuer, clientId] = process.argv.slice(2);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const token = Buffer.concat(chunks).toString('utf8').trim();
if (!issuer || !clientId || !token) {
    process.stderr.write('usage: node revoke.mjs ISSUER CLIENT_ID < TOKEN\n');
    process.exit(2);
}
const meta = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
const res = await fetch(meta.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'refresh_token', client_id: clientId })
});
process.stderr.write(`revoke: ${meta.revocation_endpoint} answered ${res.status}\n`);
process.exit(res.status === 200 ? 0 : 1);
