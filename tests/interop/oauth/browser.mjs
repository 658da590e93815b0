// browser.mjs - the user's browser, scripted, for tests/interop/oauth.sh: given the
// authorization URL a client shows, it does what a person at a browser would.
//
//   node browser.mjs URL [LOGIN]        LOGIN: the account to sign in as (default alice)
//
// It GETs URL and follows the redirects itself (fetch with redirect: "manual", cookies kept
// per origin from Set-Cookie, as a browser keeps them), fills in and submits the sign-in form
// of the authorization server's login page (login and password), submits the consent page's
// form, and follows the last redirect to the client's redirect URI: there it checks that the
// redirect carries code, state and iss (RFC 9207: the issuer the authorization URL belongs
// to), GETs it (mcp.h's loopback receiver) and checks that the page says the window can be
// closed. It starts with no cookies, so every run signs in anew.
//
// Prints one line per step on stderr ("browser: ..."); never the code or a cookie's value.
// BROWSER_SECRETS=FILE: appends the authorization code to FILE (for the test's check that
// the client never prints it). Exits 0 when it saw the sign-in form, the consent form and
// the "You can close this window" page; 1 otherwise.
import fs from 'node:fs';
import process from 'node:process';

const start = process.argv[2];
const login = process.argv[3] || 'alice';
const say = line => process.stderr.write(`browser: ${line}\n`);
if (!start) {
    say('usage: node browser.mjs URL [LOGIN]');
    process.exit(2);
}

const jars = new Map();   // origin -> Map(name -> value)

function keep(url, res) {
    const jar = jars.get(url.origin) || new Map();
    jars.set(url.origin, jar);
    for (const line of res.headers.getSetCookie()) {
        const [pair, ...attrs] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq <= 0) continue;
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        const gone = attrs.some(a => {
            const [k, v = ''] = a.trim().split('=');
            if (/^max-age$/i.test(k)) return Number(v) <= 0;
            if (/^expires$/i.test(k)) return Date.parse(v) <= Date.now();
            return false;
        });
        if (gone || value === '') jar.delete(name);
        else jar.set(name, value);
    }
}

async function go(url, init = {}) {
    const jar = jars.get(url.origin);
    const headers = { ...(init.headers || {}), 'user-agent': 'mcp-h-interop-browser/1' };
    if (jar && jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    keep(url, res);
    return res;
}

const unescape = s => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
const attr = (tag, name) => {
    const m = tag.match(new RegExp(`\\b${name}="([^"]*)"`, 'i'));
    return m ? unescape(m[1]) : undefined;
};

// The page's (first) form: its action and its fields, hidden ones with their values.
function form(html, base) {
    const m = html.match(/<form\b[^>]*>([\s\S]*?)<\/form>/i);
    if (!m) return undefined;
    const tag = m[0].slice(0, m[0].indexOf('>') + 1);
    const fields = new Map();
    for (const input of m[1].match(/<input\b[^>]*>/gi) || []) {
        const name = attr(input, 'name');
        if (name) fields.set(name, attr(input, 'value') ?? '');
    }
    return { action: new URL(attr(tag, 'action') || base.href, base), method: (attr(tag, 'method') || 'get').toLowerCase(), fields };
}

const issuer = new URL(start).origin;
let url = new URL(start);
{
    const q = url.searchParams;
    say(`the authorization URL asks for response_type=${q.get('response_type')}, scope=${q.get('scope') || '(none)'}, ` +
        `resource=${q.get('resource') || '(none)'}, code_challenge_method=${q.get('code_challenge_method') || '(none)'}, ` +
        `state: ${q.has('state') ? 'yes' : 'NO'}, redirect_uri=${q.get('redirect_uri')}`);
}
let res = await go(url);
let signedIn = false, consented = false, closed = false;
for (let hops = 0; hops < 30; hops++) {
    say(`${url.origin === issuer ? 'authorization server' : url.origin} ${url.pathname} -> ${res.status}`);
    if (res.status >= 300 && res.status < 400) {
        const next = new URL(res.headers.get('location'), url);
        await res.arrayBuffer();
        if (next.origin !== issuer) {                     // back to the client: its redirect URI
            const q = next.searchParams;
            if (q.get('error')) {
                say(`the authorization server sent back error=${q.get('error')} (${q.get('error_description') || ''})`);
                process.exit(1);
            }
            say(`the redirect to ${next.origin}${next.pathname} carries code: ${q.has('code') ? 'yes' : 'NO'}, ` +
                `state: ${q.has('state') ? 'yes' : 'NO'}, iss: ${q.get('iss') === issuer ? 'the issuer' : q.get('iss') || 'NO'}`);
            if (!q.has('code') || !q.has('state') || q.get('iss') !== issuer) process.exit(1);
            if (process.env.BROWSER_SECRETS) fs.appendFileSync(process.env.BROWSER_SECRETS, q.get('code') + '\n', { mode: 0o600 });
        }
        url = next;
        res = await go(url);
        continue;
    }
    const body = await res.text();
    if (url.origin !== issuer) {                          // the client's page
        const words = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
        say(`the page at the redirect URI says: "${words.slice(0, 120)}"`);
        closed = res.status === 200 && /you can close this window/i.test(words);
        break;
    }
    const f = res.status === 200 ? form(body, url) : undefined;
    if (!f || f.method !== 'post') {
        say(`unexpected page from the authorization server (${res.status}): ${body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 200)}`);
        process.exit(1);
    }
    if (f.fields.has('login')) {
        f.fields.set('login', login);
        f.fields.set('password', 'correct horse battery staple');
        say(`signing in as ${login} (the sign-in form)`);
        signedIn = true;
    } else if (f.fields.get('prompt') === 'consent') {
        say('allowing access (the consent form)');
        consented = true;
    } else {
        say(`a form this browser does not know: ${[...f.fields.keys()].join(', ')}`);
        process.exit(1);
    }
    url = f.action;
    res = await go(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([...f.fields]).toString()
    });
}
say(`signed in: ${signedIn ? 'yes' : 'no'}, consented: ${consented ? 'yes' : 'no'}, "you can close this window": ${closed ? 'yes' : 'no'}`);
process.exit(signedIn && consented && closed ? 0 : 1);
