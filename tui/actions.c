/* The action table from actions.h, looked up by key or by action. */
#include "actions.h"

#include <stdio.h>
#include <string.h>

struct action_entry {
	const char *name;
	const char *help;
	int keys[TUI_ACTION_MAX_KEYS]; /* 0-terminated unless full */
};

static const struct action_entry action_table[TUI_ACT__COUNT] = {
#define TUI_ACTION_ENTRY(id, name_, help_, ...) \
	[TUI_ACT_##id] = {.name = name_, .help = help_, .keys = {__VA_ARGS__}},
	TUI_ACTIONS(TUI_ACTION_ENTRY)
#undef TUI_ACTION_ENTRY
};

enum tui_action tui_action_for_key(int key)
{
	if (key <= 0)
		return TUI_ACT_NONE;
	for (int a = 0; a < TUI_ACT__COUNT; a++)
		for (int k = 0; k < TUI_ACTION_MAX_KEYS && action_table[a].keys[k]; k++)
			if (action_table[a].keys[k] == key)
				return (enum tui_action)a;
	return TUI_ACT_NONE;
}

const char *tui_action_name(enum tui_action a)
{
	return a >= 0 && a < TUI_ACT__COUNT ? action_table[a].name : "none";
}

const char *tui_action_help(enum tui_action a)
{
	return a >= 0 && a < TUI_ACT__COUNT ? action_table[a].help : "";
}

/* A key as people write it; NULL for keys that need no separate mention
 * (the second code curses has for Enter). */
static const char *key_label(int key, char *buf, size_t size)
{
	static const struct { int key; const char *label; } named[] = {
		{KEY_UP, "Up"}, {KEY_DOWN, "Down"}, {KEY_LEFT, "Left"}, {KEY_RIGHT, "Right"},
		{KEY_PPAGE, "PgUp"}, {KEY_NPAGE, "PgDn"}, {KEY_HOME, "Home"}, {KEY_END, "End"},
		{'\t', "Tab"}, {'\n', "Enter"}, {'\r', NULL}, {KEY_ENTER, NULL},
		{TUI_KEY_ESC, "Esc"}, {' ', "Space"}, {KEY_F(1), "F1"},
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].key == key)
			return named[i].label;
	if (key > 0 && key < 32)
		snprintf(buf, size, "Ctrl-%c", key + '@');
	else if (key < 127)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "%s", keyname(key));
	return buf;
}

void tui_action_keys(enum tui_action a, char *buf, size_t size)
{
	size_t len = 0;
	char one[32];

	buf[0] = '\0';
	if (a < 0 || a >= TUI_ACT__COUNT)
		return;
	for (int k = 0; k < TUI_ACTION_MAX_KEYS && action_table[a].keys[k]; k++) {
		const char *label = key_label(action_table[a].keys[k], one, sizeof(one));
		if (!label)
			continue;
		int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", label);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}
