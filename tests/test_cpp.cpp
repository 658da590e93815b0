// mcp.h from C++: the declarations included in a C++ translation unit, linked against the
// implementation compiled as C (build/test_cpp) and as C++ (build/test_cpp_cppimpl).
// Usage: test_cpp [DATA_DIR]
#include "../mcp.h"
#include "test.h"
#include <cstring>
#include <string>
#include <vector>

namespace {

// What a C++ user would write around the C API: owners that free in their destructor.
struct Doc {
    mcp_json_doc *d;
    mcp_error err;
    explicit Doc(const std::string &text) : d(mcp_json_parse(text.data(), text.size(), &err)) {}
    ~Doc() { mcp_json_free(d); }
    const mcp_json *root() const { return mcp_json_root(d); }
private:
    Doc(const Doc &);
    Doc &operator=(const Doc &);
};

struct Text {
    char *p;
    size_t len;
    Text(char *text, size_t n) : p(text), len(n) {}
    ~Text() { mcp_free(p); }
    std::string str() const { return p ? std::string(p, len) : std::string("<null>"); }
private:
    Text(const Text &);
    Text &operator=(const Text &);
};

std::string dump(const mcp_json *v, int pretty)
{
    size_t len = 0;
    char *p = mcp_json_dump(v, pretty, &len);
    Text t(p, len);
    return t.str();
}

TEST_CASE(parse_and_access)
{
    Doc doc("{\"tools\":[{\"name\":\"echo\",\"n\":1},{\"name\":\"add\",\"n\":-2}],"
            "\"ok\":true,\"pi\":3.25,\"big\":9007199254740993,\"s\":\"caf\\u00e9\"}");
    CHECK(doc.d != NULL);
    if (!doc.d) return;
    const mcp_json *root = doc.root();
    CHECK(mcp_json_typeof(root) == MCP_JSON_OBJECT);
    CHECK(mcp_json_len(root) == 5);

    const mcp_json *tools = mcp_json_get(root, "tools");
    CHECK(mcp_json_typeof(tools) == MCP_JSON_ARRAY && mcp_json_len(tools) == 2);
    CHECK(std::string(mcp_json_str(mcp_json_get(mcp_json_at(tools, 1), "name"))) == "add");
    CHECK(mcp_json_at(tools, 2) == NULL);

    std::vector<std::string> names;
    size_t i;
    const mcp_json *item;
    mcp_json_foreach(tools, i, item) {
        const char *name = mcp_json_str(mcp_json_get(item, "name"));
        names.push_back(name ? name : "<missing>");
    }
    CHECK(names.size() == 2 && names[0] == "echo" && names[1] == "add");

    std::vector<std::string> keys;
    mcp_json_foreach(root, i, item) {
        size_t klen = 0;
        const char *k = mcp_json_key_at(root, i, &klen);
        keys.push_back(k ? std::string(k, klen) : "<null>");
        CHECK(mcp_json_get(root, keys.back().c_str()) == item);
    }
    CHECK(keys.size() == 5 && keys[0] == "tools" && keys[4] == "s");

    int64_t n = 0;
    CHECK(mcp_json_int64(mcp_json_get(mcp_json_at(tools, 1), "n"), &n) == 1 && n == -2);
    CHECK(mcp_json_int64(mcp_json_get(root, "big"), &n) == 1 && n == 9007199254740993LL);
    CHECK(mcp_json_num(mcp_json_get(root, "pi")) == 3.25);
    CHECK(mcp_json_is_true(mcp_json_get(root, "ok")));
    CHECK(std::strcmp(mcp_json_str(mcp_json_get(root, "s")), "caf\xc3\xa9") == 0);
    CHECK(mcp_json_len(mcp_json_get(root, "s")) == 5);

    // chains through missing values are safe
    CHECK(mcp_json_get(mcp_json_get(root, "nope"), "deeper") == NULL);
    CHECK(mcp_json_str(mcp_json_at(mcp_json_get(root, "ok"), 0)) == NULL);

    CHECK(dump(mcp_json_get(root, "tools"), 0) ==
          "[{\"name\":\"echo\",\"n\":1},{\"name\":\"add\",\"n\":-2}]");
    CHECK(dump(mcp_json_at(tools, 0), 1) == "{\n  \"name\": \"echo\",\n  \"n\": 1\n}");
}

TEST_CASE(writer)
{
    mcp_jw w;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "method");
    mcp_jw_str(&w, "tools/call");
    mcp_jw_key(&w, "params");
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "args");
    mcp_jw_arr_begin(&w);
    mcp_jw_int(&w, 42);
    mcp_jw_num(&w, 0.5);
    mcp_jw_bool(&w, 0);
    mcp_jw_null(&w);
    mcp_jw_str(&w, "quote \" and \\ and \n");
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    mcp_error err;
    size_t len = 0;
    char *text = mcp_jw_finish(&w, &len, &err);
    Text t(text, len);
    CHECK(text != NULL);
    CHECK(t.str() == "{\"method\":\"tools/call\",\"params\":{\"args\":"
                     "[42,0.5,false,null,\"quote \\\" and \\\\ and \\n\"]}}");
    mcp_jw_free(&w);

    // what the writer wrote parses back; a parsed value written again is equal
    Doc doc(t.str());
    CHECK(doc.d != NULL);
    CHECK(std::string(mcp_json_str(mcp_json_get(doc.root(), "method"))) == "tools/call");
    mcp_jw w2;
    mcp_jw_init(&w2, 1);
    CHECK(mcp_jw_value(&w2, doc.root()) == MCP_OK);
    char *again = mcp_jw_finish(&w2, &len, NULL);
    Text t2(again, len);
    Doc doc2(t2.str());
    CHECK(doc2.d != NULL && mcp_json_equal(doc.root(), doc2.root()));
    mcp_jw_free(&w2);

    // misuse is recorded: a value where a key is due
    mcp_jw w3;
    mcp_jw_init(&w3, 0);
    mcp_jw_obj_begin(&w3);
    CHECK(mcp_jw_int(&w3, 1) == MCP_ERR_INVALID);
    CHECK(mcp_jw_finish(&w3, NULL, &err) == NULL && err.status == MCP_ERR_INVALID);
    mcp_jw_free(&w3);
}

TEST_CASE(errors)
{
    Doc bad("{\"a\":}");
    CHECK(bad.d == NULL);
    CHECK(bad.err.status == MCP_ERR_PARSE);
    CHECK(std::string(bad.err.message).find("line 1") != std::string::npos);
    CHECK(std::string(mcp_status_str(MCP_ERR_PARSE)).compare(0, 14, "MCP_ERR_PARSE:") == 0);
}

} // namespace

int main(int argc, char **argv)
{
    return test_main(argc, argv);
}
