/* mt_tui_run: the terminal's life (start, signals, restore) and the main
 * loop, the only place that redraws, reloads or quits. The one exception is
 * a scan's progress bar (frame_progress), drawn while the scan holds the
 * loop. */
#include "tui.h"
#include "dispatch.h"
#include "error.h"
#include "util.h"
#include "tui_curses.h"

#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by SIGINT, SIGTERM and SIGHUP; the loop checks it after every wakeup
 * (get_wch returns at least once a second) and leaves cleanly. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t curses_active;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_STOP (sizeof(stop_signals) / sizeof(stop_signals[0]))
#define N_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

struct saved_signals {
	struct sigaction stop[N_STOP];
	struct sigaction fatal[N_FATAL];
};

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* A crash must not leave the terminal in raw mode. endwin() is not
 * async-signal-safe, but the process dies right after (htop does the same). */
static void on_fatal_signal(int sig)
{
	if (curses_active)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void restore_at_exit(void)
{
	if (curses_active)
		endwin();
}

/* Installed before curses starts, so that ncurses keeps its hands off
 * SIGINT and SIGTERM (it only takes over signals left at SIG_DFL). No
 * SA_RESTART: the signal should wake get_wch. */
static void signals_install(struct saved_signals *saved)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &sa, &saved->stop[i]);
	sa.sa_handler = on_fatal_signal;
	for (size_t i = 0; i < N_FATAL; i++)
		sigaction(fatal_signals[i], &sa, &saved->fatal[i]);
}

static void signals_restore(const struct saved_signals *saved)
{
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &saved->stop[i], NULL);
	for (size_t i = 0; i < N_FATAL; i++)
		sigaction(fatal_signals[i], &saved->fatal[i], NULL);
}

static int term_start(SCREEN **out)
{
	static int atexit_done;
	const char *term = getenv("TERM");
	SCREEN *scr;

	if (!term || !*term)
		return mt_error_set(MT_EUSAGE, "the wizard needs a terminal type: TERM is not set");
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return mt_error_set(MT_ERROR, "cannot start the terminal interface for TERM=%s",
				    term);
	set_term(scr);
	curses_active = 1;
	if (!atexit_done)
		atexit_done = atexit(restore_at_exit) == 0;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	draw_init();
	*out = scr;
	return 0;
}

static void term_stop(SCREEN *scr)
{
	endwin();
	curses_active = 0;
	delscreen(scr);
}

static int screens_init(struct tui_wizard *w)
{
	for (int i = 0; i <= TUI_NSTEPS; i++) {
		struct tui_screen *s = i < TUI_NSTEPS ? &w->steps[i] : &w->help;
		s->ops = i < TUI_NSTEPS ? tui_step_ops[i] : &tui_help_ops;
		page_init(&s->page, 0);
		if (s->ops->private_size && !(s->state = calloc(1, s->ops->private_size)))
			return mt_error_set(MT_EIO, "out of memory");
	}
	return 0;
}

static void screens_dispose(struct tui_wizard *w)
{
	for (int i = 0; i <= TUI_NSTEPS; i++) {
		struct tui_screen *s = i < TUI_NSTEPS ? &w->steps[i] : &w->help;
		if (!s->ops)
			continue;
		page_dispose(&s->page);
		if (s->state && s->ops->done)
			s->ops->done(s->state);
		free(s->state);
	}
}

/* Waits for a key until the next second of the wall clock, so that the
 * timer in the status line ticks on time. 0 when none came, -1 when the
 * terminal is gone (hung up with no SIGHUP reaching the wizard: every
 * read would fail at once, and the loop would spin). */
static int read_key(struct tui_key *k)
{
	struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
	wint_t ch;
	int rc;

	timeout((int)(1000 - mt_now_ms() % 1000) + 5);
	rc = get_wch(&ch);
	if (rc == ERR)
		return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) ? -1
											     : 0;
	k->fkey = rc == KEY_CODE_YES;
	k->ch = ch;
	return 1;
}

static void run_loop(struct tui_wizard *w)
{
	int result = TUI_REDRAW;
	struct tui_ctx ctx;
	struct tui_key k;

	frame_layout(w);
	record_init(w);
	record_reload(w);
	ctx = tui_make_ctx(w);
	if (w->steps[w->selected].ops->enter)
		result |= w->steps[w->selected].ops->enter(w->steps[w->selected].state, &ctx);
	while (!stop_signal && !(result & TUI_QUIT)) {
		/* on the clock only when something changed: a large record
		 * takes long to build, and rebuilding the same one every two
		 * seconds would keep the wizard busy */
		if ((result & TUI_RELOAD) ||
		    (mt_mono_ms() - w->model_mono >= TUI_RELOAD_MS && record_stale(w)))
			record_reload(w);
		if (result & TUI_REPAINT)
			clearok(curscr, TRUE);
		if (result & (TUI_REDRAW | TUI_REPAINT)) {
			record_step_parts(w);
			ctx = tui_make_ctx(w);
			frame_draw(w, &ctx);
			refresh();
		}
		/* the step drawn says it is working something out: now, then
		 * draw it again (a key pressed meanwhile waits its turn) */
		if (record_pending(w)) {
			record_build_pending(w);
			result = TUI_REDRAW;
			continue;
		}
		/* No key before the next second is a tick: redraw for the clock. */
		switch (read_key(&k)) {
		case 1: result = tui_dispatch(w, &k); break;
		case 0: result = TUI_REDRAW; break;
		default: stop_signal = SIGHUP; break; /* as if hung up: the same way out */
		}
	}
}

int mt_tui_run(mt_trial *trial)
{
	struct tui_wizard w;
	struct saved_signals saved;
	SCREEN *scr = NULL;
	char *old_locale;
	int error;

	if (!trial || !trial->journal)
		return mt_error_set(MT_EINVALID, "the wizard needs an open trial");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return mt_error_set(MT_EUSAGE, "the wizard needs a terminal: stdin and stdout "
				    "must be a tty (in scripts use 'mtrial notes', "
				    "'mtrial effort status' or 'mtrial report')");
	memset(&w, 0, sizeof(w));
	w.trial = trial;
	old_locale = mt_strdup(setlocale(LC_ALL, NULL));
	setlocale(LC_ALL, "");
	stop_signal = 0;
	signals_install(&saved);
	if ((error = screens_init(&w)) == 0 && (error = term_start(&scr)) == 0) {
		run_loop(&w);
		term_stop(scr);
	}
	signals_restore(&saved);
	setlocale(LC_ALL, old_locale);
	free(old_locale);
	screens_dispose(&w);
	json_decref(w.model);
	record_dispose(&w);
	if (!error && stop_signal)
		error = mt_error_set(MT_ERROR, "interrupted");
	return error;
}
