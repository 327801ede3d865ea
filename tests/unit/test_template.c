/* The report template language: values, sections, inverted sections,
 * standalone lines, errors with line numbers, escaping per format, and the
 * shipped templates. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "template.h"

static char *render_as(const char *name, const char *tmpl, const char *model_json)
{
	json_t *m = json_loads(model_json, 0, NULL);
	char *out = NULL;
	assert_non_null(m);
	assert_int_equal(mt_template_render(&out, tmpl, m, name), 0);
	json_decref(m);
	return out;
}

static void expect_as(const char *name, const char *tmpl, const char *model, const char *want)
{
	char *out = render_as(name, tmpl, model);
	assert_string_equal(out, want);
	free(out);
}

static void expect(const char *tmpl, const char *model, const char *want)
{
	expect_as("t.md", tmpl, model, want);
}

static void test_values(void **state)
{
	(void)state;
	expect("a {{x}} b {{n}} {{r}} {{t}} {{missing}}|{{o.k}}",
	       "{\"x\":\"s\",\"n\":42,\"r\":1.5,\"t\":true,\"o\":{\"k\":\"deep\"}}",
	       "a s b 42 1.5 true |deep");
}

static void test_sections_iterate_and_scope_outwards(void **state)
{
	(void)state;
	expect("{{#items}}[{{name}}/{{unit}}]{{/items}}",
	       "{\"unit\":\"h\",\"items\":[{\"name\":\"a\"},{\"name\":\"b\",\"unit\":\"m\"}]}",
	       "[a/h][b/m]");
	expect("{{#tags}}#{{.}} {{/tags}}", "{\"tags\":[\"x\",\"y\"]}", "#x #y ");
}

static void test_falsy_and_inverted(void **state)
{
	(void)state;
	const char *t = "{{#v}}yes{{/v}}{{^v}}no{{/v}}";
	expect(t, "{\"v\":false}", "no");
	expect(t, "{\"v\":null}", "no");
	expect(t, "{\"v\":[]}", "no");
	expect(t, "{\"v\":\"\"}", "no");
	expect(t, "{}", "no");
	expect(t, "{\"v\":0}", "yes");
	expect(t, "{\"v\":{\"a\":1}}", "yes");
}

static void test_nested_same_name(void **state)
{
	(void)state;
	expect("{{#a}}<{{#a}}in{{/a}}>{{/a}}", "{\"a\":true}", "<in>");
}

static void test_standalone_lines_leave_no_blank_lines(void **state)
{
	(void)state;
	expect("top\n{{! comment }}\n{{#l}}\n- {{.}}\n{{/l}}\nend\n", "{\"l\":[1,2]}",
	       "top\n- 1\n- 2\nend\n");
	expect("  {{#l}}  \nx\n  {{/l}}\ny", "{\"l\":[]}", "y");
}

static void test_errors_name_the_line(void **state)
{
	json_t *m = json_object();
	char *out = (char *)"sentinel";
	(void)state;
	assert_int_equal(mt_template_render(&out, "a\nb\n{{#open}}x\n", m, "r.md"), MT_EINVALID);
	assert_null(out);
	assert_string_equal(mt_error_last(), "r.md:3: section 'open' is not closed");
	assert_int_equal(mt_template_render(&out, "a\n{{/x}}", m, "r.md"), MT_EINVALID);
	assert_string_equal(mt_error_last(), "r.md:2: '{{/x}}' closes no section");
	assert_int_equal(mt_template_render(&out, "{{x", m, "r.md"), MT_EINVALID);
	assert_string_equal(mt_error_last(), "r.md:1: '{{' without '}}'");
	json_decref(m);
}

static void test_blocks_render_where_asked_in_that_context(void **state)
{
	(void)state;
	/* a definition renders nothing (its lines go), each use renders it */
	expect("{{<row}}\n- {{name}}{{#unit}} ({{unit}}){{/unit}}\n{{/row}}\ntop\n{{#a}}\n{{>row}}\n{{/a}}\n"
	       "[{{>row}}]",
	       "{\"name\":\"outer\",\"a\":[{\"name\":\"x\",\"unit\":\"s\"},{\"name\":\"y\"}]}",
	       "top\n- x (s)\n- y\n[- outer\n]");
}

static void test_missing_block_names_the_line(void **state)
{
	json_t *m = json_object();
	char *out = NULL;
	(void)state;
	assert_int_equal(mt_template_render(&out, "a\n{{>nope}}", m, "r.md"), MT_EINVALID);
	assert_string_equal(mt_error_last(), "r.md:2: no block 'nope' ({{<nope}})");
	assert_int_equal(mt_template_render(&out, "{{<me}}{{>me}}{{/me}}{{>me}}", m, "r.md"),
			 MT_EINVALID);
	assert_string_equal(mt_error_last(), "r.md: blocks nested too deeply");
	json_decref(m);
}

/* A streamed list: n items made one at a time, none kept. */
static int numbers(void *payload, mt_template_item_fn item, void *renderer)
{
	int n = *(int *)payload, error = 0;
	for (int i = 0; i < n && error == 0; i++) {
		json_t *v = json_pack("{si, ss}", "i", i, "s", i % 2 ? "<odd>" : "even");
		error = item(v, renderer);
		json_decref(v);
	}
	return error;
}

static void test_streamed_list_written_as_it_goes(void **state)
{
	int n = 20000;
	struct mt_template_list lists[] = {{"items", numbers, &n}, {NULL, NULL, NULL}};
	json_t *m = json_pack("{ss, s[i]}", "title", "t&t", "items", 7);
	char *text = NULL, line[64];
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	(void)state;
	assert_int_equal(mt_template_write(f, "<h1>{{title}}</h1>\n{{#items}}\n<li>{{i}} {{s}}</li>\n{{/items}}\n"
					      "{{^items}}none{{/items}}end\n",
					      m, "t.html", lists),
			 0);
	fclose(f);
	/* the model's own "items" is not used: the list is */
	assert_true(strncmp(text, "<h1>t&amp;t</h1>\n<li>0 even</li>\n<li>1 &lt;odd&gt;</li>\n", 48) == 0);
	snprintf(line, sizeof(line), "<li>%d &lt;odd&gt;</li>\nend\n", n - 1);
	assert_string_equal(text + size - strlen(line), line);
	assert_true(size > 64 * 1024); /* more than one flush */
	free(text);
	json_decref(m);
}

static void test_html_escapes_every_value_but_raw_ones(void **state)
{
	const char *note = "{\"n\":\"<script>alert('x')</script> & \\\"q\\\"\",\"svg\":\"<svg/>\"}";
	(void)state;
	expect_as("t.html", "<p>{{n}}</p>{{&svg}}", note,
		  "<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</p><svg/>");
	expect_as("t.html", "{{#l}}<li>{{.}}</li>{{/l}}", "{\"l\":[\"a<b\",\"c>d\"]}",
		  "<li>a&lt;b</li><li>c&gt;d</li>");
	/* a plain-text template escapes nothing */
	expect_as("t.txt", "{{n}}", note, "<script>alert('x')</script> & \"q\"");
	assert_int_equal(mt_template_escape_for("summary.html"), MT_TEMPLATE_HTML);
	assert_int_equal(mt_template_escape_for("summary.md"), MT_TEMPLATE_MARKDOWN);
	assert_int_equal(mt_template_escape_for("md"), MT_TEMPLATE_TEXT);
}

/* The model's strings are written for Markdown: a span in backticks is
 * code in HTML, not text with backticks; inside a <code> element (a
 * command) the backticks are the command's own and stay. */
static void test_html_marks_backtick_spans_up_as_code(void **state)
{
	const char *m = "{\"n\":\"worst `a<b>`: see `mtrial tracks`, it's 1` tick\",\"c\":\"echo `date`\"}";
	(void)state;
	expect_as("t.html", "<p>{{n}}</p>", m,
		  "<p>worst <code>a&lt;b&gt;</code>: see <code>mtrial tracks</code>, it&#39;s 1` tick</p>");
	expect_as("t.html", "<p><code>{{c}}</code> {{c}}</p>", m,
		  "<p><code>echo `date`</code> echo <code>date</code></p>");
	/* Markdown keeps them: they are its code spans */
	expect("{{c}}", m, "echo `date`");
}

static void test_markdown_escapes_what_breaks_the_document(void **state)
{
	const char *m = "{\"t\":\"a | b <script>x</script> <= 2\\nnext\",\"c\":\"x|y<z>\"}";
	(void)state;
	/* in a table row: the pipe, the tag, the line break */
	expect("| {{t}} |\n", m, "| a \\| b &lt;script>x&lt;/script> <= 2 next |\n");
	/* in a table row's code span: only the pipe (GFM reads \\| there too) */
	expect("| `{{c}}` | {{c}} |\n", m, "| `x\\|y<z>` | x\\|y&lt;z> |\n");
	/* outside a table a pipe is text; a tag is not */
	expect("- {{t}}\n", m, "- a | b &lt;script>x&lt;/script> <= 2 next\n");
	expect("`{{c}}` and {{c}}", m, "`x|y<z>` and x|y&lt;z>");
}

static void test_shipped_summary_renders_empty_and_full(void **state)
{
	char *tmpl = NULL, *out = NULL;
	json_t *m;
	(void)state;

	unsetenv("MTRIAL_TEMPLATE_DIR");
	assert_int_equal(mt_template_load(&tmpl, "summary.md"), 0);
	m = json_pack("{s{ss}, s{ss}, s[], si, s[{ss, ss}]}", "trial", "name", "T1", "mtrial",
		      "version", "0", "notes", "note_count", 0, "missing", "field",
		      "quality_target.metric", "why", "the quality target");
	assert_int_equal(mt_template_render(&out, tmpl, m, "summary.md"), 0);
	assert_non_null(strstr(out, "# Migration trial: T1"));
	assert_non_null(strstr(out, "None yet (`mtrial note TEXT`)."));
	assert_non_null(strstr(out, "- not in trial.yaml: `quality_target.metric` (the quality target)"));
	assert_non_null(strstr(out, "## Verdict: not yet evaluated"));
	assert_null(strstr(out, "{{"));
	free(out);
	/* a scan with more findings than the report lists says how many are left */
	json_object_set_new(m, "scan", json_pack("{s[{ss, ss, ss, si, ss}], si}", "findings",
						 "effort", "high", "file", "a.py", "kind", "k",
						 "line", 3, "message", "m", "findings_more", 7));
	assert_int_equal(mt_template_render(&out, tmpl, m, "summary.md"), 0);
	assert_non_null(strstr(out, "- **high** `a.py:3` k: m"));
	assert_non_null(strstr(out, "... and 7 more of lower or equal effort"));
	free(out);
	json_object_set_new(json_object_get(m, "scan"), "findings_more", json_null());
	assert_int_equal(mt_template_render(&out, tmpl, m, "summary.md"), 0);
	assert_null(strstr(out, "more of lower"));
	free(out);
	json_decref(m);
	free(tmpl);
	assert_int_equal(mt_template_load(&tmpl, "no-such.md"), MT_ENOTFOUND);
}

/* The HTML report puts the verdict, its caveat and each criterion first,
 * with every value escaped and the charts inserted as they are. */
static void test_shipped_html_summary(void **state)
{
	char *tmpl = NULL, *out = NULL;
	json_t *m;
	const char *verdict, *caveat, *compat;
	(void)state;

	unsetenv("MTRIAL_TEMPLATE_DIR");
	assert_int_equal(mt_template_load(&tmpl, "summary.html"), 0);
	m = json_pack("{s{ss}, s{ss}, s{ss, ss, ss, s[{ss, ss, ss, ss, ss}], ss}, s[{ss, ss}], si,"
		      " s{ss}}",
		      "trial", "name", "T<1>", "mtrial", "version", "0", "decision", "verdict", "NO_GO",
		      "headline", "NO GO", "summary", "1 of 1 criteria not met", "criteria", "name",
		      "quality-target", "status", "not_met", "status_label", "NOT MET", "evidence",
		      "best eval_loss 2.3 > 2.0", "source", "runs #3", "caveat", "only one run <b>",
		      "notes", "text", "see <script>alert(1)</script>", "created", "2026-01-01",
		      "note_count", 1, "charts", "quality", "<svg class=\"chart\"></svg>");
	assert_int_equal(mt_template_render(&out, tmpl, m, "summary.html"), 0);
	assert_null(strstr(out, "{{"));
	assert_non_null(strstr(out, "<title>Migration trial: T&lt;1&gt;</title>"));
	assert_non_null(strstr(out, "see &lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_null(strstr(out, "<script>"));
	assert_non_null(strstr(out, "<svg class=\"chart\"></svg>"));
	verdict = strstr(out, "Verdict: NO GO");
	caveat = strstr(out, "Main caveat: only one run &lt;b&gt;");
	compat = strstr(out, "<h2>Compatibility</h2>");
	assert_true(verdict && caveat && compat && verdict < caveat && caveat < compat);
	assert_non_null(strstr(out, "<td class=\"status not_met\">NOT MET</td><td>best eval_loss 2.3 &gt; 2.0</td>"));
	free(out);
	/* op lists are marked up by the template, not as Markdown code spans */
	json_object_set_new(m, "exact", json_pack("{s{si, ss, si, ss, s{s[ss], si}}}", "trace", "id", 1,
						  "file", "ops.json", "ops", 4, "missed_by_scan",
						  "`aten::a`, `aten::b` and 2 more", "missed_by_scan_list",
						  "ops", "aten::a", "aten::<b>", "more", 2));
	assert_int_equal(mt_template_render(&out, tmpl, m, "summary.html"), 0);
	assert_non_null(strstr(out, "missed by the static scan: <code>aten::a</code> <code>aten::&lt;b&gt;</code> and 2 more</li>"));
	assert_null(strstr(out, "`aten::a`"));
	free(out);
	json_decref(m);
	free(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_sections_iterate_and_scope_outwards),
		cmocka_unit_test(test_falsy_and_inverted),
		cmocka_unit_test(test_nested_same_name),
		cmocka_unit_test(test_standalone_lines_leave_no_blank_lines),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_blocks_render_where_asked_in_that_context),
		cmocka_unit_test(test_missing_block_names_the_line),
		cmocka_unit_test(test_streamed_list_written_as_it_goes),
		cmocka_unit_test(test_html_escapes_every_value_but_raw_ones),
		cmocka_unit_test(test_html_marks_backtick_spans_up_as_code),
		cmocka_unit_test(test_markdown_escapes_what_breaks_the_document),
		cmocka_unit_test(test_shipped_summary_renders_empty_and_full),
		cmocka_unit_test(test_shipped_html_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
