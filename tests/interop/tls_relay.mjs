// tls_relay.mjs - a TLS endpoint in front of a plain TCP one, for the https checks of
// tests/interop/mcpc_features.sh: every TLS connection accepted on 127.0.0.1 is decrypted and
// relayed byte for byte to 127.0.0.1:TARGET_PORT (an HTTP MCP server), and the answers back.
//
//   node tls_relay.mjs CERT.pem KEY.pem TARGET_PORT [LISTEN_PORT]
//
// LISTEN_PORT 0 or absent: a free port. Prints "tls-relay listening on PORT" on stdout when it
// accepts connections; exits on SIGTERM or SIGINT. A failed handshake (a client that refuses
// the certificate) is one line on stderr, and the relay goes on.

import fs from 'node:fs';
import net from 'node:net';
import process from 'node:process';
import tls from 'node:tls';

const [certFile, keyFile, targetArg, listenArg] = process.argv.slice(2);
const target = Number(targetArg);
const listen = Number(listenArg || 0);
if (!certFile || !keyFile || !Number.isInteger(target) || target <= 0 || !Number.isInteger(listen)) {
    process.stderr.write('usage: node tls_relay.mjs CERT.pem KEY.pem TARGET_PORT [LISTEN_PORT]\n');
    process.exit(2);
}

const open = new Set();
const server = tls.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, client => {
    const upstream = net.connect(target, '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const done = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream);
    upstream.pipe(client);
});
server.on('tlsClientError', err => process.stderr.write(`tls-relay: handshake failed: ${err.message}\n`));
server.listen(listen, '127.0.0.1', () => {
    process.stdout.write(`tls-relay listening on ${server.address().port}\n`);
});
const stop = () => {
    server.close();
    for (const s of open) s.destroy();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
