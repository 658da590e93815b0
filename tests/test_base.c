/* Tests of the base layer: status names, mcp_free, the monotonic clock, how a failing call
   fills mcp_error, SHA-256, base64url and the random source. The allocator hooks are tested in
   standalone_alloc.c, which needs its own implementation; standalone_random.c runs these cases
   again with getentropy as the random source, and reads /dev/urandom alone.
   Usage: test_base [DATA_DIR] */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include "../mcp.h"
#include "test.h"
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STATUS(x) { x, #x }
static const struct { mcp_status s; const char *name; } statuses[] = {
    STATUS(MCP_OK), STATUS(MCP_AGAIN), STATUS(MCP_ERR_NOMEM), STATUS(MCP_ERR_INVALID),
    STATUS(MCP_ERR_PARSE), STATUS(MCP_ERR_LIMIT), STATUS(MCP_ERR_IO), STATUS(MCP_ERR_CLOSED),
    STATUS(MCP_ERR_TIMEOUT), STATUS(MCP_ERR_CANCELLED), STATUS(MCP_ERR_HTTP), STATUS(MCP_ERR_RPC),
    STATUS(MCP_ERR_PROTOCOL), STATUS(MCP_ERR_AUTH)
};
#define NSTATUS (sizeof statuses / sizeof statuses[0])

TEST_CASE(status_str)
{
    size_t i, j;
    int unknown[4];
    unknown[0] = 2; unknown[1] = -13; unknown[2] = 1000; unknown[3] = -1000;
    /* the enum's values are as the contract says */
    CHECK(MCP_OK == 0 && MCP_AGAIN == 1 && MCP_ERR_NOMEM == -1 && MCP_ERR_PROTOCOL == -11 && MCP_ERR_AUTH == -12);
    for (i = 0; i < NSTATUS; i++) {
        const char *s = mcp_status_str(statuses[i].s);
        CHECKF(s && s[0], "mcp_status_str(%s) is empty", statuses[i].name);
        if (!s) continue;
        /* documented form: "MCP_ERR_PARSE: malformed input" */
        CHECKF(strncmp(s, statuses[i].name, strlen(statuses[i].name)) == 0 &&
               s[strlen(statuses[i].name)] == ':',
               "mcp_status_str(%s) = \"%s\" does not start with its name", statuses[i].name, s);
        for (j = 0; j < i; j++)
            CHECKF(strcmp(s, mcp_status_str(statuses[j].s)) != 0,
                   "%s and %s have the same text", statuses[i].name, statuses[j].name);
    }
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = mcp_status_str((mcp_status)unknown[i]);
        CHECKF(s && s[0], "mcp_status_str(%d) is empty", unknown[i]);
        if (!s) continue;
        for (j = 0; j < NSTATUS; j++)
            CHECKF(strcmp(s, mcp_status_str(statuses[j].s)) != 0,
                   "unknown status %d is named like %s", unknown[i], statuses[j].name);
    }
}

TEST_CASE(free)
{
    size_t len = 0;
    char *text;
    mcp_json_doc *doc = mcp_json_parse("[1]", 3, NULL);
    mcp_free(NULL);            /* must be a no-op */
    mcp_json_free(NULL);
    CHECK(doc != NULL);
    text = mcp_json_dump(mcp_json_root(doc), 0, &len);
    CHECK(text && len == 3 && strcmp(text, "[1]") == 0);
    mcp_free(text);            /* text the library returned */
    mcp_json_free(doc);
}

TEST_CASE(time)
{
    int64_t t0, prev, now, d;
    long i, backwards = 0;
    struct timespec ts;
    t0 = prev = mcp_time_ms();
    for (i = 0; i < 200000; i++) {
        now = mcp_time_ms();
        if (now < prev) backwards++;
        prev = now;
    }
    CHECKF(backwards == 0, "mcp_time_ms went backwards %ld times", backwards);
    ts.tv_sec = 0; ts.tv_nsec = 30 * 1000000L;
    now = mcp_time_ms();
    while (nanosleep(&ts, &ts) != 0) { }
    d = mcp_time_ms() - now;
    /* it counts milliseconds: a 30 ms sleep is at least 30 of them (upper bound generous) */
    CHECKF(d >= 30 && d < 60000, "30 ms sleep measured as %lld ms", (long long)d);
    CHECK(mcp_time_ms() >= t0);
}

/* Something to show a user: words, no control characters, no trailing newline or space. */
static int is_sentence(const char *m)
{
    size_t i, n = strlen(m);
    if (n < 10 || !isalpha((unsigned char)m[0]) || !strchr(m, ' ') || m[n - 1] == ' ')
        return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)m[i] < 0x20 || m[i] == 0x7f) return 0;
    return 1;
}

static void check_failure(const char *what, const char *text, size_t len,
                          const mcp_json_opts *opts, mcp_status want)
{
    mcp_error err;
    mcp_json_doc *doc;
    memset(&err, 0x5A, sizeof err);    /* garbage: every field must be overwritten */
    doc = opts ? mcp_json_parse_ex(text, len, opts, &err) : mcp_json_parse(text, len, &err);
    CHECKF(doc == NULL, "%s: parse succeeded", what);
    mcp_json_free(doc);
    CHECKF(err.status == want, "%s: status %d, want %d", what, (int)err.status, (int)want);
    CHECKF(memchr(err.message, 0, sizeof err.message) != NULL, "%s: message not terminated", what);
    if (memchr(err.message, 0, sizeof err.message))
        CHECKF(is_sentence(err.message), "%s: message \"%s\" is not a sentence", what, err.message);
    CHECKF(err.http_status == 0 && err.rpc_code == 0 && err.sys_errno == 0,
           "%s: unrelated fields not zeroed (%d %ld %d)", what, err.http_status, err.rpc_code,
           err.sys_errno);
    /* the same failure with a NULL mcp_error */
    doc = opts ? mcp_json_parse_ex(text, len, opts, NULL) : mcp_json_parse(text, len, NULL);
    CHECKF(doc == NULL, "%s: parse with NULL err succeeded", what);
    mcp_json_free(doc);
}

TEST_CASE(error)
{
    mcp_json_opts opts;
    mcp_error err;
    memset(&opts, 0, sizeof opts);
    check_failure("truncated array", "[1,2", 4, NULL, MCP_ERR_PARSE);
    check_failure("missing comma", "{\n  \"a\": 1\n  \"b\": 2}", 20, NULL, MCP_ERR_PARSE);
    check_failure("empty input", "", 0, NULL, MCP_ERR_PARSE);
    check_failure("NULL text with length", NULL, 5, NULL, MCP_ERR_INVALID);
    opts.max_depth = 2;
    check_failure("depth limit", "[[[1]]]", 7, &opts, MCP_ERR_LIMIT);
    opts.max_depth = 0; opts.max_size = 4;
    check_failure("size limit", "[1,2,3]", 7, &opts, MCP_ERR_LIMIT);

    /* the message says where: line and column of the documented form */
    memset(&err, 0, sizeof err);
    CHECK(mcp_json_parse("{\n  \"a\": 1\n  \"b\": 2}", 20, &err) == NULL);
    CHECKF(strncmp(err.message, "JSON parse error at line 3, column 3 ", 37) == 0,
           "message \"%s\"", err.message);
}

#ifndef MCP_NO_AUTH
/* ---- SHA-256, base64url and the random source (what the authorization layer builds on) ---- */

static void hex32(const unsigned char d[32], char out[65])
{
    static const char x[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 32; i++) { out[2 * i] = x[d[i] >> 4]; out[2 * i + 1] = x[d[i] & 15]; }
    out[64] = 0;
}

static void check_sha256(const char *what, const void *data, size_t len, const char *want)
{
    unsigned char d[32];
    char got[65];
    mcp_sha256(data, len, d);
    hex32(d, got);
    CHECKF(strcmp(got, want) == 0, "SHA-256 of %s: %s, expected %s", what, got, want);
}

/* The examples of FIPS 180-4 (NIST's "SHA256.pdf" and the one-million-'a' message). */
TEST_CASE(sha256_nist)
{
    size_t n = 1000000;
    char *a = (char *)malloc(n);
    check_sha256("\"\" (NULL)", NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha256("\"\"", "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha256("abc", "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_sha256("the 448-bit message", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check_sha256("the 896-bit message",
                 "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                 "klmnopqrlmnopqrsmnopqrstnopqrstu", 112,
                 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 'a', n);
    check_sha256("one million 'a'", a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Every length 0..130 (one block, the padding's two-block edge at 56..63, two and three blocks)
   of the pattern byte i = (i * 131 + 7) & 255, hashed from an odd address. The digests were made
   once with Python: hashlib.sha256(bytes((i*131+7)&255 for i in range(n))).hexdigest(), and
   two of them checked against sha256sum. */
static const char *const sha256_pattern[131] = {
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "ca358758f6d27e6cf45272937977a748fd88391db679ceda7dc7bf1f005ee879",
    "4a80a67af76ac958d9b3b9af012f83a552196b0116e980d91a315c95e62f922f",
    "17aef23a39d753e713c203c152454d29fa8e39a98e83a69b39a5094dba9ae951",
    "2aad11f94736f39dd139082c65f4b03537584e4a49221847e098238ddc6d153f",
    "f74b1421379962a45534bfff59f3d39431e8b80cd08f00de2d5a252a87753da3",
    "262957a1ba4d188c93ee074331fcf808a10487c54254abc5d20f91b76b0491f3",
    "d68796b7712ef368707a713257728d066d10964d9ac113a284888979415d588a",
    "dcbc821bb9a36f997efeabf7764797402a041575c40539ea9d549503d3225409",
    "24a1108979c137efa170e71c7f5d843874c1d3b39f812100569f10b1996f62c1",
    "ba3f51c8b1198f14620114fe83ba0c6bea120a466cdf996ca3d872669e3c38ff",
    "2b7795f34bf1bcfdf09a01b7987ec208d0808a16e48ab0d0bdc881192ed71ca6",
    "f03c8fea15a29f08284a8e4140a01c17f86d08054ffd9509e16b13693cc42435",
    "16675837bad66e5d8be4c047faf87f8749978c17b1d04b977f87dddfd5bc2ff4",
    "221043803819aeb68b6dcff0adf31f5031581db65e621c130056c616dc342cf1",
    "c0121582635a552f8e60baab7923fe1fc270423aae80c3bca723cc76af593a89",
    "bf1bb93d74f56e14ad36b4e45c1a7c75a32d93df95150c3e280a45bc7623420c",
    "6cf6584e0380783b1420a41616c7802cbe7f6ae72ea91c00e52c530e7a243ca5",
    "812f635d36626ec8d6d51045d77f21f71c6410494795ab61fd8332f808eaa75c",
    "d6166ef39d724209d8c495698cbfafd61120b8fa5afe095311bd0021f18a4b10",
    "a83fae9a0c8247db228230415c33dac27608f9768cc63a09ce0b305e35f3fbd0",
    "54be4b03654a24a9a39a20382c24d7a0498385d0ebbc5bdc8c5cd75ecf823757",
    "0593518b5a52d7e01bab2c58d8011f25711bc5af69b152062917fc840438a46f",
    "0a0fe347b677937abbf6808fc12cd8bb163a2207459dc3a36d99b8bcf54d9832",
    "cd881948c51a6d9435b812ad00fb10e11b6f4ada57daaef4dc1cad1adf4d897d",
    "76c385562d302bc0f65e5fc042125ac546346fef3f0290e56e81e9dafd1a94bf",
    "10701c8195e71e13ba28c34b8c20cca04fd350ce3125b7f4a2956865ec30c35f",
    "e23c4022ad0e2e97798e808c5d1c5bc903fcb415acad11a524b8ef5decb2406c",
    "410652a8aa54d81da9d120be965cf682fab444e31209c606dbe18701fb7f7d7a",
    "842e8b2ec7692ad32049919363370075e3e4085e2ae15a136afd7ebade72b65e",
    "caae9a259763141f60e33b4d9eefb7064bf5295f6ea134ecd3cff8c75462ac79",
    "b40a28e1f3c2313f0c11d4cac74153540d766e4fca27dbbaedfbc2ea6c1e8d30",
    "bc9aa1b102854f1e4b21064c8d8552a658396222da87d1d75158f1fb15989168",
    "ba2525a86a58dca8882443e63aebb5cba28e46d3eac03ac86ada03154bf39d3f",
    "b7718965c30b9a89a2dddc0fcaeff52edb5bbbb34d3c453db8b7befdbb751215",
    "f8e4cbc4f4ddaf53ff80e4485a6cc72b8a9258abf244b6f2e96c65dd852f4a76",
    "f13407d53a6676b909893a22597b96de0fae3295419e788749cf0e076659b82e",
    "09475090c09806082901c22b941ee1ccf64bd34f3230ea1453ed81302060cc7f",
    "31d5d52d3e26ecc8d2b90bbaf3536cbee79834affc74c8cf1357cc4767699cbe",
    "6e37397e43bc3abd83af2354f800ef17f92cedf3458f53325c1e4ad05ab78c1f",
    "2c5acec66ef219b615930373916433c11a1366a8395be14b2412fa9150115b7f",
    "f2835d6b1ef8f3104fbbb6ec1863d5263ccdb35ad128139b8a4fcb0a14e92e0f",
    "710ac95780e9560bb84483fd03d2603c03ffee45887af2149f64fcd8e271a703",
    "98f0a3da85962fe089448268ca36758c43b95a836c8f6d392ce071e6cd8df294",
    "cb4fc478d9b0a365bd0d19f9d0bb74c79c080308c91c1d7d25610f101d1bce0d",
    "233115cff023a05c3c574f104422c3bacba633dafa7da71cf8395becbae2e244",
    "3ffcbbd46e00096b427006d71983dbd61906c9c33418f177c91ae102c7fed024",
    "b992da42a805995c855a4ecc0c7b4f4310d5972bae9edbf2e1f2b9ffd59a7707",
    "a76bcd9e614588d92f6ad18599cc025c2e21c38ed1127d040f83ca356af2edff",
    "00b9883f6ada7ba1adeff0517e20346fe50af9c4d19ace2aa85b8845cd44ab5c",
    "ac073bb0beaa6b285662307e4b566fad47e632fd792a38d193d9b60c2e5718c3",
    "dbd5fdcad0fcd29408694c8953410848336d4360f2b72c14a9ac628a154c0adc",
    "af0041f8a62ed1c34dfa9afd0a17aba5cb85d265d45cf02c006d2baab13b4365",
    "9b4563a486a65e769dcb192e0a6659b96ab2b7b6f52bf9091c5ecab75ad9fb9b",
    "df0dfd870292b2cb91ca3d2df4aeca24947f6ecc609d3bf6ed64dea8a4b5be69",
    "16ed9c4697ca11d5f6fb25ea7900252dd4cb97215d7f6d0b2bb3e2a86ac0ec72",
    "939ada93b2fe1e9c596d767bb408567c83e253667f0b25e5be8e16f35f2cbac9",
    "ab84281f3b181e6cfc7cf870c7f3e7912be6fd1ac49c7dd6b21f6c25bb9a5eaa",
    "46084278e607470669555dcbb4927df877d85663b0bed62ee31e769714a77d83",
    "dbdecd0cd48d8c3dffe97fec1eeec06dd10b4e0c8035cd82f40185aa2d142f83",
    "c8706e0b5979a41db9094a4a5ff1a19babbcdd4d1204c3e140981faeecc94cf8",
    "f8a1d57f033ce7e62290870f950025b3396c445c55542480d065f0554dc0eae2",
    "6e5dc5ee1806926ba4bb9f4fa79276a040a15ac10811b04d80e900741703c6d0",
    "6073f83b09ae82016cdbe24c18996c48f0eaa08ca675d0f6b90b807fc29e0149",
    "b337ba9b0c69c391364e985fdcb23a889887e59800832c92fbfa22b8a3c40304",
    "9d6a3fb113b586b4ab97bc11c993a27bd9b7bbcb756e0646083dc47a679600e6",
    "d513c6a4c03ac076f0d41c8645233e8ec97f7acf93bd442295f8e4c75c30fb25",
    "13001f3258b62efa5e2be644d50f970fdf99f466466cae528ff083054db7f841",
    "1653e30a34fa1f2ef632b4c0594e94e696d6e2b0238d498a40df65808b9a7eab",
    "8fd85efca33abf0dc54f345264eba2fc5fb394872683ccc032f8021a5003e5fd",
    "fb4dfe5aa11a50089cba1b05012caf00a279bd22a22dd00caf9effb0863af68e",
    "b08e101e14abd95b007067e8bf9f2d6d7d83ebb306622030d25b8f02a6c63693",
    "f60e389e54f243fc70bb7ed4e44ca3dc0c5efe4a9ff2385acf7d2120c0a1a665",
    "ab10ab1b874f13075f84de4103f511f41efbec4167808730045fe0202c0f1c2e",
    "6bf852344056dd97e8ee17f1ade242dac88784b68e13b5a6021e2509295b991d",
    "ad143df0ba4a75f46a89da6323856c67af23fd9ec2314968cf3be98c42f86746",
    "d315356b49ec9276e55a446adaa841bc604fc0f3432e0e93f75fb9fa1afc3120",
    "5242db27385fbbcd1d2c4ec281b63758943007aff7f5f92d18640796fb160ea9",
    "d6da5bfa422e5018ec7bdc39b48300d1caaa3c6210ee6a940c16734ccc712117",
    "2f391ed6b4588fdddabf2afb4c4054772fc3a6878e11cc9974751aded82f818b",
    "6e0f69d1b09fa647e8b20465b8dde48d5fbe82b14b4dfc3f4b6b17fd9864f4ce",
    "8385326634cd6f2ade82b191066528f70f45f0d5e0b8c5c7f5a407016e6a07ac",
    "64e480b23f0457cc09c6045863fa99c5e5172c674380ad5c8f518a5b94ff1d4c",
    "b822feeb116a5bfd1f761873855914a597f483ef939dcae7eeedbad202ac687a",
    "1ae56af10af1fdc3bca6769f000d9d4af5c5c615a249dfb2e48e4f1f93919be9",
    "352734af26b50ecec375a1a7a72aa250029aeecff4314b67f850acbb35f2372f",
    "bbeffc3a45b381e4a1b497f8c51235590bad88859769b336f7daeeaa5e406d82",
    "f2ef14fd73b48e7fa3b0c4b38a91b2631c499956659e99ab564ebe54ef84b0c9",
    "a6d19b9afd91c15a699d0a368449a222e492f8e809773752789bbbf5a4eb8dcb",
    "57218865054203a355da67036a26688e29d77e52a88325a71e11a7ead40da4bc",
    "1f5d4b9d3add403f735f748a26d5cd1bba262958a1cbeda293f29866db63758a",
    "e8899b7a1b92bddae077eec05805dd6e9a3698d73583c036ccc5ce5cb9e77c31",
    "db2735d8eec96eb180aaa217336f765b201193503244e08dcc5538ef81577ebf",
    "d23235f2dddd1b2f8833cc1922778dfc9df816a0d687ffa6bf472e1d56334bf1",
    "66508e4b92f8f3f5c1fe5cdbe73bb87c2170ec6ef0ab948545f6ccee9dfc24ec",
    "c8736de66d8bf2834a0eddb432eca75a8b84ea1c82b9b3b7291374471700789b",
    "6e6968bd9fcbe5dc5fab9a474b353fe87360b86943a867b4907630eadbb5cd80",
    "1ecd026221adf1ab2f8b2ee70743497cea0d4a2421962f4719ed1b38448bfc80",
    "62efc30d8ffab16f81842a105bafdc9e3371bc2b0af6c840ee27a9cd4dc7ec37",
    "d3d387c7f04cfa925f04c1a81cd26c41c5331d79f6bead38497347214167d6dd",
    "b493defffa04821dbe4b757ed039293591680fd3f05a08182b145193205fcba0",
    "83315009356e1b4f0ac57dc8af20c6777f5d98d275e2a2e230322e4bb1cb0a18",
    "5496a287a2be3938d7ece0db6e32d32e31b602645a9d832846484831a49c4f38",
    "a072681dbd185cead5c938d152d231cdabbd85408831eadeb41570b9fe02b73d",
    "4814f8d16ef045a193077ba4452f3919bba92334096e984e7daf0ae95567b4b9",
    "5acaf83c0edbd903d6b08753c25f817892bbba274c7524ddd11d84654a448a95",
    "fec5d243c0af8edaec8e4ae97751123635554225ee89d90364647275fe5edbaf",
    "e5870bb50411c36c5815e806e9bf76019d9bcb64b171e1a720952830c91a7e2b",
    "dad0513def7ae493a4f5d2f370cc66f749dd0f42847f2090a8f66079beab3777",
    "16280aa64c0452058e623a0a2c3a34e9f45d4fc5ce9cfd3c8d47f5c54c5c3cd5",
    "35a67e9d58774a1c46f485068891200debdadba4283ebb368c01ddfb2157d454",
    "2d9743c1caad343dbb42d591b307dcad9879a9568fa2adf98894dbb62b4a096a",
    "ecf2bd67b292d09ff421b2f279b9f9525c17b8bbd71711dba7fae1fab799c791",
    "c7257986b43b9cd02b4083cd2749e26446d183207e5799ece7e474bc69239100",
    "cc0a4e02c4e4804411cc269de174aed03b12a3897d9181b227cdfaa838b19a9d",
    "cd11c192e356e941ba1c8401c6e1e3584b801363ab871239a0b59e7f73ddae14",
    "83602167bc0fd4689ebba2e3e1a103b71b899b556ebdefc0ef27970a23143724",
    "73f060cd9120df8516941d4725bcfb0003f79a4d380d573e89609607f14927f1",
    "3aff8a915add96fd9b2b7a060069d97a65145dad43f199092ec3b7fde41772ca",
    "9773fbac8194c3d789af101b49b6a26073076895ef6e0f658432849dd477a43f",
    "070a538f085dd94821d4dc197c5c8b791051891d4fa2a1bf25d3c275236676f7",
    "05a3caed94d5ee13402c4422abc9fa3ab0dbda743a8480a12cafefe5e5da992c",
    "7dbb18dee0eb18da9eb73bea2044dca700eeb54302a539ba77c8fade73230c22",
    "27f27eb488368deb9c8ff2eacc8ce92253aa52d87ef3f22e696134f20dd3c3d6",
    "9210d7a78f0034aca43b3eed23b133adf55d68e494c5a7d6bcfd60e37ad4dcce",
    "1efb8d002b76d2a184f6474143648e3d22e80f4078b4fc265cad47ff713a39e8",
    "432d4ce0fcae1665f79a402d68fe0a88e7053cd2686b92624bc9e993eff99d8d",
    "5072b7a9a4cda7f6d80f1eff09b8b9653201dba22319daf32c6c05339d57f483",
    "485a94e53eba9717a5d8b7b4489cad92a752f1c5722e7dfd29dd164b7c438d11",
    "72b63785704123441e7405a2620b859d1f107604ef5882e2674e82cc40d173a6",
    "21c10b3ba180b93247fab48bd9318b4cb8089e313676ce507c18710864e57e8f"
};

TEST_CASE(sha256_lengths)
{
    unsigned char buf[1 + 131];
    size_t n;
    char what[32];
    for (n = 0; n < 131; n++) buf[1 + n] = (unsigned char)((n * 131 + 7) & 255);
    for (n = 0; n <= 130; n++) {
        snprintf(what, sizeof what, "%lu pattern bytes", (unsigned long)n);
        check_sha256(what, buf + 1, n, sha256_pattern[n]);
    }
}

static void check_b64(const char *what, const void *data, size_t len, const char *want)
{
    char out[64];
    size_t r = mcp_base64url(data, len, out, sizeof out);
    CHECKF(r == strlen(want) && strcmp(out, want) == 0, "base64url of %s: \"%s\" (%lu), expected \"%s\"",
           what, out, (unsigned long)r, want);
}

/* RFC 4648 section 10, without the padding; they hold no digit that differs in the url alphabet. */
TEST_CASE(base64url_rfc4648)
{
    static const char *const want[7] = { "", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy" };
    size_t n;
    for (n = 0; n <= 6; n++) check_b64(want[n], "foobar", n, want[n]);
    check_b64("NULL", NULL, 0, "");
}

TEST_CASE(base64url_alphabet)
{
    static const unsigned char fbff[2] = { 0xfb, 0xff };
    static const unsigned char zero[3] = { 0, 0, 0 };
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char all[48];
    char out[70];
    size_t i;
    check_b64("fb ff", fbff, 2, "-_8");
    check_b64("00 00 00", zero, 3, "AAAA");
    /* the 6-bit values 0..63 in order, packed 4 to 3 bytes, must give the RFC's table in order */
    for (i = 0; i < 16; i++) {
        unsigned long v = (unsigned long)(4 * i) << 18 | (unsigned long)(4 * i + 1) << 12 |
                          (unsigned long)(4 * i + 2) << 6 | (unsigned long)(4 * i + 3);
        all[3 * i] = (unsigned char)(v >> 16);
        all[3 * i + 1] = (unsigned char)(v >> 8);
        all[3 * i + 2] = (unsigned char)v;
    }
    i = mcp_base64url(all, sizeof all, out, sizeof out);
    CHECKF(i == 64 && strcmp(out, alphabet) == 0, "the whole alphabet: \"%s\"", out);
}

/* snprintf's contract: the full length always, at most cap bytes written, NUL at the end. */
TEST_CASE(base64url_truncation)
{
    const char *full = "Zm9vYmFy";
    char out[16];
    size_t cap, r, big, j;
    unsigned char dummy = 0;
    CHECK(mcp_base64url("foobar", 6, NULL, 0) == 8);
    for (cap = 0; cap <= 10; cap++) {
        size_t kept = cap ? (cap - 1 < 8 ? cap - 1 : 8) : 0;
        memset(out, '#', sizeof out);
        r = mcp_base64url("foobar", 6, out, cap);
        CHECKF(r == 8, "cap %lu: returned %lu", (unsigned long)cap, (unsigned long)r);
        CHECKF(strncmp(out, full, kept) == 0, "cap %lu: \"%.*s\"", (unsigned long)cap, (int)kept, out);
        if (cap) CHECKF(out[kept] == 0, "cap %lu: no NUL at %lu", (unsigned long)cap, (unsigned long)kept);
        for (j = cap ? kept + 1 : 0; j < sizeof out; j++)
            CHECKF(out[j] == '#', "cap %lu: wrote byte %lu", (unsigned long)cap, (unsigned long)j);
    }
    /* lengths near SIZE_MAX: a size query reads no data, so a one-byte buffer stands in */
    big = (SIZE_MAX - 4) / 4;
    r = mcp_base64url(&dummy, big * 3 + 2, NULL, 0);
    CHECKF(r == big * 4 + 3, "largest length: %lu", (unsigned long)r);
    r = mcp_base64url(&dummy, big * 3 + 3, NULL, 0);
    CHECKF(r == SIZE_MAX, "length overflow: %lu", (unsigned long)r);
    memset(out, '#', sizeof out);
    r = mcp_base64url(&dummy, SIZE_MAX, out, sizeof out);
    CHECKF(r == SIZE_MAX && out[0] == 0 && out[1] == '#', "length overflow with a buffer: %lu", (unsigned long)r);
}

/* RFC 7636 appendix B: its 32 octets give the verifier, whose S256 challenge is
   BASE64URL(SHA256(ASCII(verifier))). */
TEST_CASE(pkce_rfc7636)
{
    static const unsigned char octets[32] = { 116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96,
        125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121 };
    char verifier[64], challenge[64];
    unsigned char d[32];
    size_t n = mcp_base64url(octets, sizeof octets, verifier, sizeof verifier);
    CHECKF(n == 43 && strcmp(verifier, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == 0,
           "verifier \"%s\"", verifier);
    mcp_sha256(verifier, strlen(verifier), d);
    n = mcp_base64url(d, sizeof d, challenge, sizeof challenge);
    CHECKF(n == 43 && strcmp(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM") == 0,
           "challenge \"%s\"", challenge);
}

static int all_zero(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

/* Fills len bytes of a zeroed buffer with a canary after them; checks success, err untouched,
   the canary intact, and (for 16 bytes and more) that no 16-byte run stayed zero. */
static void check_random(size_t len)
{
    static unsigned char buf[1000 + 8];
    mcp_error err, before;
    mcp_status st;
    size_t i;
    memset(buf, 0, sizeof buf);
    memset(buf + len, 0xA5, 8);
    memset(&err, 0x5A, sizeof err);
    before = err;
    st = mcp_random(buf, len, &err);
    CHECKF(st == MCP_OK, "mcp_random(%lu): %s (%s)", (unsigned long)len, mcp_status_str(st), err.message);
    CHECKF(memcmp(&err, &before, sizeof err) == 0, "mcp_random(%lu) changed err on success", (unsigned long)len);
    for (i = 0; i < 8; i++) CHECKF(buf[len + i] == 0xA5, "mcp_random(%lu) wrote past the end", (unsigned long)len);
    for (i = 0; i + 16 <= len; i += 16)   /* a 16-byte run of zeros: 2^-128 by chance */
        CHECKF(!all_zero(buf + i, 16), "mcp_random(%lu) left bytes %lu..%lu zero", (unsigned long)len,
               (unsigned long)i, (unsigned long)i + 15);
}

TEST_CASE(random)
{
    unsigned char a[32], b[32];
    mcp_error err;
    check_random(0);
    check_random(1);
    check_random(32);
    check_random(1000);   /* more than getentropy's 256 bytes a call */
    CHECK(mcp_random(NULL, 0, NULL) == MCP_OK);
    CHECK(mcp_random(a, sizeof a, NULL) == MCP_OK);
    CHECK(mcp_random(b, sizeof b, NULL) == MCP_OK);
    CHECK(memcmp(a, b, sizeof a) != 0);
    CHECK(!all_zero(a, sizeof a) && !all_zero(b, sizeof b));
    memset(&err, 0, sizeof err);
    CHECK(mcp_random(NULL, 5, &err) == MCP_ERR_INVALID);
    CHECKF(err.status == MCP_ERR_INVALID && strstr(err.message, "no buffer") != NULL, "message \"%s\"", err.message);
}
#endif /* MCP_NO_AUTH */

int main(int argc, char **argv)
{
    return test_main(argc, argv);
}
