#!/usr/bin/env python3
"""Record the aten ops a PyTorch training script dispatches.

    python3 optrace.py -o ops.json [--max-steps N] [--shape-cap K] [--every S] -- train.py ARGS...

Runs train.py as __main__ under a TorchDispatchMode that counts every aten op
in set-up, forward, backward and optimizer step, then writes one JSON file
(format "mtrial-optrace", version 1; read by mtrial). Nothing is sent anywhere.

Phases: "setup" until the first op that records autograd history (data
loading, torch.tensor per text line, weight init under no_grad), then
"forward", "backward" inside backward() and autograd.grad, "optimizer" inside
a torch.optim step. A training step is an optimizer step, or, when no
optimizer steps (weights updated by hand: p.data.add_(p.grad, alpha=-lr)), a
backward pass; "step_counter" says which, and a warning says when neither
was seen. An op's "shapes" and "distinct_shapes" are its input signatures in
training steps (forward and backward) only; "all_distinct_shapes" counts set-up
and optimizer ones too.

SIGTERM, SIGHUP (what `timeout` sends) and SIGINT stop the script and write
what was seen, with "ended": "signal" and "incomplete" saying why. What
cannot be caught (SIGKILL, the OOM killer, os._exit) leaves the last
snapshot: every --every seconds (default 30; 0: after every step) the trace so
far is written after a training step, with "ended": "running" and
"incomplete" saying so, and the final write replaces it.
Needs only the standard library and torch, and works with torch 1.13 and 2.x.

Each op is keyed by schema name and overload ("aten::add_", "Tensor"), any
namespace (custom and profiler ops too). Its input signatures are the shapes
of its tensor inputs in argument order, tensors in lists flattened; a tensor
with no single shape (nested) shows as null.

Exit status: 0 when the script completes or stops at --max-steps; the
script's own status when it calls sys.exit; 1 when it raises; 2 for bad usage
or an output that cannot be written.

Limits: weights updated by hand run outside any optimizer step, so their
ops count as forward; ops run on threads the script starts itself are not
seen (the mode stack is thread-local in both 1.13 and 2.x); a script that
ends with os._exit, or a SIGKILL, leaves only the last snapshot; torch.compile under an active dispatch mode may fall back to eager in 2.x.
"""
import contextlib
import functools
import json
import os
import platform
import runpy
import signal
import sys
import tempfile
import threading
import time
import traceback
import types

try:
    import torch
except ImportError as e:  # reported after the command line is checked
    torch = None
    TORCH_IMPORT_ERROR = e

USAGE = "usage: optrace.py -o OUT.json [--max-steps N] [--shape-cap K] [--every S] -- SCRIPT [ARGS...]"
PHASES = ("setup", "forward", "backward", "optimizer")
TRAINING = ("forward", "backward")  # the phases whose shapes the target compiles per step


class UsageError(Exception):
    """Bad command line or unusable output; reported in one line, exit 2."""


class _MaxSteps(BaseException):
    """Raised from the Nth optimizer step to stop the script. A BaseException
    so that the script's own `except Exception` does not swallow it."""


class _Signal(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP (what `timeout` and a
    closed terminal send), so that the trace is still written."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _int_option(name, text, least):
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise UsageError("%s wants an integer >= %d, not '%s'" % (name, least, text))
    return value


def _seconds_option(name, text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):  # NaN fails >= too
        raise UsageError("%s: expected seconds, 0 or more, got '%s'" % (name, text))
    return value


def parse_args(argv):
    """Options up to `--` (or the first non-option), then the script and its
    arguments. Hand-rolled because argparse's handling of `--` with a
    REMAINDER positional differs between Python versions."""
    opts = {"output": None, "max_steps": None, "shape_cap": 32, "every": 30.0}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if not arg.startswith("-"):
            break
        name, eq, value = arg.partition("=")
        if name not in ("-o", "--output", "--max-steps", "--shape-cap", "--every"):
            raise UsageError("unknown option '%s'" % arg)
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError("%s needs a value" % name)
            i += 1
            value = argv[i]
        if name in ("-o", "--output"):
            opts["output"] = value
        elif name == "--max-steps":
            opts["max_steps"] = _int_option(name, value, 1)
        elif name == "--every":
            opts["every"] = _seconds_option(name, value)
        else:
            opts["shape_cap"] = _int_option(name, value, 0)
        i += 1
    opts["command"] = argv[i:]
    if opts["output"] is None:
        raise UsageError("no output file: give -o OUT.json")
    if not opts["command"]:
        raise UsageError("no script to run after --")
    if not os.path.exists(opts["command"][0]):
        raise UsageError("%s: no such script" % opts["command"][0])
    return opts


class OpStats:
    """What one (op, overload) was seen with."""

    def __init__(self):
        self.count = 0
        self.phases = dict.fromkeys(PHASES, 0)
        self.dtypes = set()
        self.signatures = set()  # every distinct input signature, uncapped
        self.training = set()  # those seen in a training step's forward or backward
        self.shapes = []  # the first shape_cap of the training ones, in first-seen order


class Recorder:
    """The counts, and the phase the script is in. The phase is a plain
    stack, not thread-local: on CUDA the autograd engine runs backward ops on
    its own device threads (the mode follows them, as at::ThreadLocalState
    carries TorchDispatchModeTLS in 1.13 and 2.x) while the calling thread
    waits inside backward(), and those ops must count as backward."""

    def __init__(self, shape_cap, max_steps):
        self.shape_cap = shape_cap
        self.max_steps = max_steps
        self.lock = threading.Lock()
        self.ops = {}
        self.devices = set()
        self.stack = []
        self.steps = 0  # optimizer steps
        self.backwards = 0  # completed outermost backward passes
        self.optimizers = 0  # torch.optim optimizers created
        self.step_depth = 0
        self.model_seen = False
        self.snapshot = None  # called after a training step: writes the trace so far

    def phase(self):
        return self.stack[-1] if self.stack else "forward" if self.model_seen else "setup"

    def step_counter(self):
        """What counts a training step: torch.optim steps, or, without one
        (weights updated by hand, p.data.add_(p.grad, alpha=-lr), or an
        optimizer that never steps), backward passes; None when neither
        happened."""
        if self.steps:
            return "optimizer"
        return "backward" if self.backwards else None

    def training_steps(self):
        return self.steps if self.steps else self.backwards

    def backward_done(self):
        """After an outermost backward: one step when no optimizer counts
        them; --max-steps stops the script there (the last step's update by
        hand is then not traced)."""
        self.backwards += 1
        self.model_seen = True
        if self.snapshot and not self.optimizers:
            self.snapshot()
        if self.max_steps is None or self.steps:
            return
        # an optimizer that exists steps after this backward: give it the
        # chance, and stop one pass later only if it never steps
        if self.backwards >= self.max_steps + (1 if self.optimizers else 0):
            raise _MaxSteps()

    @contextlib.contextmanager
    def in_phase(self, name):
        self.stack.append(name)
        try:
            yield
        finally:
            self.stack.pop()

    def record(self, func, args, kwargs):
        """Counts one dispatched op. Reads tensor metadata only (shape, dtype,
        device are fields of the TensorImpl), so it dispatches nothing."""
        schema = getattr(func, "_schema", None)  # OpOverload._schema: 1.13 and 2.x
        key = (schema.name if schema is not None else str(func),
               getattr(func, "_overloadname", "default"))  # "default" for the unnamed overload
        tensors = _tensors(args) + _tensors(kwargs.values())
        signature = tuple(_shape(t) for t in tensors)
        # Ops before the model first computes with autograd on (data loading,
        # torch.tensor per text line, weight init under no_grad) are set-up,
        # never forward: the first op that records autograd history starts it.
        if not self.model_seen and torch.is_grad_enabled() and \
                any(t.requires_grad for t in tensors):
            self.model_seen = True
        phase = self.phase()
        with self.lock:
            stats = self.ops.get(key)
            if stats is None:
                stats = self.ops[key] = OpStats()
            stats.count += 1
            stats.phases[phase] += 1
            stats.dtypes.update(_dtype_name(t.dtype) for t in tensors)
            stats.signatures.add(signature)
            if phase in TRAINING and signature not in stats.training:
                stats.training.add(signature)
                if len(stats.shapes) < self.shape_cap:
                    stats.shapes.append(signature)
            self.devices.update(str(t.device) for t in tensors)
        return key

    def saw_outputs(self, key, out):
        # factory ops (ones, randn, randint) have no tensor inputs: their
        # device and dtype show only on the output; an op's dtypes are those
        # of its inputs and outputs (a dtype-limited CPU fallback may name
        # either: cumsum of int32 gives int64)
        outs = _tensors([out])
        with self.lock:
            self.devices.update(str(t.device) for t in outs)
            self.ops[key].dtypes.update(_dtype_name(t.dtype) for t in outs)


def _tensors(values):
    """The tensors among values, lists and tuples flattened, in order."""
    found = []
    for v in values:
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(_tensors(v))
    return found


def _shape(t):
    try:
        return tuple(t.shape)
    except (RuntimeError, NotImplementedError):  # nested tensors have no single shape
        return None


def _dtype_name(dtype):
    name = str(dtype)  # "torch.float32"
    return name[len("torch."):] if name.startswith("torch.") else name


def _dim(d):
    # symbolic sizes (2.x SymInt) stay symbolic: int() on one would specialize it
    return d if isinstance(d, int) else str(d)


def _recording_mode(rec):
    # torch.utils._python_dispatch.TorchDispatchMode exists in 1.13 and 2.x,
    # with the same __torch_dispatch__(func, types, args, kwargs) signature;
    # in both the mode is popped while its handler runs, so func() below
    # does not come back here.
    from torch.utils._python_dispatch import TorchDispatchMode

    class RecordingMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            kwargs = kwargs or {}
            key = rec.record(func, args, kwargs)  # before the call: in-place ops may resize inputs
            out = func(*args, **kwargs)
            rec.saw_outputs(key, out)
            return out

    return RecordingMode()


def _in_phase(rec, fn, name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with rec.in_phase(name):
            return fn(*args, **kwargs)
    return wrapper


def _backward_wrapper(rec, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        outermost = "backward" not in rec.stack
        with rec.in_phase("backward"):
            result = fn(*args, **kwargs)
        if outermost:
            rec.backward_done()
        return result
    return wrapper


def _step_wrapper(rec, step_func):
    """A replacement for one optimizer's step: the optimizer phase, the step
    count, and the stop after --max-steps. Only the outermost step counts, so
    an optimizer that steps an inner one (Lookahead) counts once."""

    @functools.wraps(step_func)
    def step(self, *args, **kwargs):
        # step(closure), as LBFGS takes: the closure runs the model, so its
        # ops are forward (and backward), not optimizer
        if args and callable(args[0]):
            args = (_in_phase(rec, args[0], "forward"),) + args[1:]
        elif callable(kwargs.get("closure")):
            kwargs = dict(kwargs, closure=_in_phase(rec, kwargs["closure"], "forward"))
        rec.step_depth += 1
        try:
            with rec.in_phase("optimizer"):
                result = step_func(self, *args, **kwargs)
        finally:
            rec.step_depth -= 1
        if rec.step_depth == 0:
            rec.steps += 1
            if rec.max_steps is not None and rec.steps >= rec.max_steps:
                raise _MaxSteps()
            if rec.snapshot:
                rec.snapshot()
        return result

    return step


def _patch(rec, patches):
    """Wraps the entry points that set the phase; returns nothing, records
    (owner, name, original) in patches for _unpatch."""

    def replace(owner, name, new):
        patches.append((owner, name, getattr(owner, name)))
        setattr(owner, name, new)

    # Tensor.backward calls torch.autograd.backward; the stack nests, and
    # only the outermost backward() counts as a pass (autograd.grad, as a
    # gradient penalty uses inside a step, is backward but no step).
    replace(torch.autograd, "backward", _backward_wrapper(rec, torch.autograd.backward))
    replace(torch.autograd, "grad", _in_phase(rec, torch.autograd.grad, "backward"))
    replace(torch.Tensor, "backward", _backward_wrapper(rec, torch.Tensor.backward))

    # Optimizer classes override step(), so wrapping Optimizer.step is not
    # enough. Each instance gets its own wrapped step at the end of
    # Optimizer.__init__, bound with MethodType because the LR schedulers of
    # 1.13 and 2.x re-wrap optimizer.step through its __self__ and __func__.
    # (2.x also has global hooks, torch.optim.optimizer.
    # register_optimizer_step_pre/post_hook, but 1.13 has none; this works
    # in both.)
    init = torch.optim.Optimizer.__init__

    @functools.wraps(init)
    def optimizer_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        rec.optimizers += 1
        step_func = getattr(self.step, "__func__", None)
        if step_func is not None:
            self.step = types.MethodType(_step_wrapper(rec, step_func), self)

    replace(torch.optim.Optimizer, "__init__", optimizer_init)


def _unpatch(patches):
    for owner, name, original in reversed(patches):
        setattr(owner, name, original)
    patches.clear()


def run_script(rec, command):
    """Runs command[0] as __main__ the way `python3 SCRIPT ARGS` would, under
    the recording mode. Returns (ended, exit_status, error)."""
    script = command[0]
    sys.argv = list(command)
    # python puts the script's directory, symlinks resolved, first on sys.path
    sys.path[0] = os.path.dirname(os.path.realpath(script))
    patches = []
    _patch(rec, patches)
    previous = _catch_signals()
    try:
        with _recording_mode(rec):
            runpy.run_path(script, run_name="__main__")
        return "completed", None, None
    except _MaxSteps:
        return "max_steps", None, None
    except _Signal as e:
        return "signal", 128 + e.signum, "killed by %s" % e
    except KeyboardInterrupt:
        return "signal", 130, "killed by SIGINT (Ctrl-C)"
    except SystemExit as e:
        return "exit", _exit_status(e.code), None
    except BaseException as e:  # the file is still written
        _print_script_traceback(e, script)
        text = str(e)
        return "exception", None, type(e).__name__ + (": " + text if text else "")
    finally:
        _unpatch(patches)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _raise_signal(signum, frame):
    raise _Signal(signum)


def _catch_signals():
    """SIGTERM and SIGHUP stop the script with an exception, as Ctrl-C
    does, so the ops seen until then are written, marked incomplete.
    SIGKILL cannot be caught: a run that may get one (a hard timeout) should
    use --max-steps. The script may install its own handlers over these."""
    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[signum] = signal.signal(signum, _raise_signal)
        except (ValueError, OSError):  # not the main thread, or not settable
            pass
    return previous


def _print_script_traceback(e, script):
    # from the script's first frame on, as python itself would show it,
    # without optrace's and runpy's frames
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb or e.__traceback__)


def _exit_status(code):
    # what the interpreter does with sys.exit(code)
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _sig_json(signature):
    return [None if s is None else [_dim(d) for d in s] for s in signature]


def result_json(rec, opts, ended, exit_status, error):
    ops = []
    for (name, overload), st in sorted(rec.ops.items()):
        ops.append({
            "op": name, "overload": overload, "count": st.count,
            "phases": st.phases,
            "backward_only": st.phases["backward"] == st.count,
            "dtypes": sorted(st.dtypes),
            "shapes": [_sig_json(s) for s in st.shapes],
            "distinct_shapes": len(st.training),
            "shapes_truncated": len(st.training) > len(st.shapes),
            "all_distinct_shapes": len(st.signatures),
        })
    return {
        "format": "mtrial-optrace", "version": 1,
        "torch": torch.__version__, "python": platform.python_version(),
        "command": opts["command"], "devices": sorted(rec.devices),
        "steps": rec.training_steps(), "step_counter": rec.step_counter(),
        "optimizer_steps": rec.steps, "backward_passes": rec.backwards,
        "max_steps": opts["max_steps"], "shape_cap": opts["shape_cap"],
        "ended": ended, "exit_status": exit_status, "error": error,
        "incomplete": _incomplete(ended, error),
        "warnings": _warnings(rec, opts),
        "ops": ops,
    }


def _incomplete(ended, error):
    """Why the trace holds less than the whole run, or None."""
    if ended == "signal":
        return "%s: the ops until then" % error
    if ended == "exception":
        return "the script raised %s: the ops until then" % error
    return None


def _warnings(rec, opts):
    found = []
    if rec.step_counter() is None:
        found.append("no training step seen (no torch.optim step, no backward()): "
                     "every op after set-up counts as forward%s"
                     % ("; --max-steps could not stop the script" if opts["max_steps"] else ""))
    elif rec.step_counter() == "backward":
        found.append("no torch.optim optimizer stepped: steps counted as backward passes "
                     "(weights updated by hand)%s"
                     % ("; --max-steps stops after the last pass, so that step's update "
                        "is not traced" if opts["max_steps"] else ""))
    return found


def open_output(path):
    """A temporary file beside path, to be renamed over it: (fd, its name);
    UsageError when it cannot be made."""
    if os.path.isdir(path):
        raise UsageError("%s: is a directory" % path)
    directory = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp", dir=directory)
    except OSError as e:
        raise UsageError("cannot write %s: %s" % (path, e.strerror))
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the file normal modes
    return fd, tmp


def write_output(fd, tmp, path, doc):
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise UsageError("cannot write %s: %s" % (path, e.strerror))


def _snapshots(rec, opts):
    """The function that writes the trace so far after a step, at most every
    opts["every"] seconds, through a file of its own renamed over the output:
    a reader never sees half a file, and the final write replaces it."""
    last = [time.monotonic()]

    def snapshot():
        now = time.monotonic()
        if now - last[0] < opts["every"]:
            return
        last[0] = now
        with rec.lock:
            doc = result_json(rec, opts, "running", None, None)
        doc["incomplete"] = ("still running when last written (after step %d; written every "
                             "%g s): the process ended without writing, as after SIGKILL, the "
                             "OOM killer or os._exit" % (rec.training_steps(), opts["every"]))
        try:
            fd, tmp = open_output(opts["output"])
            write_output(fd, tmp, opts["output"], doc)
        except UsageError as e:  # the final write reports it; training goes on
            print("optrace: snapshot: %s" % e, file=sys.stderr)
    return snapshot


def main(argv):
    try:
        opts = parse_args(argv)
        if torch is None:
            raise UsageError("cannot import torch (%s): run optrace with the Python "
                             "your training uses" % TORCH_IMPORT_ERROR)
        # an unwritable output is a usage error now, not a loss after the
        # training; no file is held open meanwhile (a SIGKILL would leave it)
        fd, tmp = open_output(opts["output"])
        os.close(fd)
        os.unlink(tmp)
    except UsageError as e:
        print("optrace: %s" % e, file=sys.stderr)
        return 2
    pid = os.getpid()
    rec = Recorder(opts["shape_cap"], opts["max_steps"])
    rec.snapshot = _snapshots(rec, opts)
    ended, exit_status, error = run_script(rec, opts["command"])
    if os.getpid() != pid:  # a forked child that got out this way: not ours to write
        os._exit(1 if ended == "exception" else exit_status or 0)
    try:
        fd, tmp = open_output(opts["output"])
        write_output(fd, tmp, opts["output"], result_json(rec, opts, ended, exit_status, error))
    except UsageError as e:
        print("optrace: %s" % e, file=sys.stderr)
        return 2
    for text in _warnings(rec, opts):
        print("optrace: warning: %s" % text, file=sys.stderr)
    if ended == "exception":
        print("optrace: %s raised %s; the ops seen until then are in %s"
              % (opts["command"][0], error, opts["output"]), file=sys.stderr)
        return 1
    if ended == "signal":
        print("optrace: %s; the ops seen until then are in %s, marked incomplete"
              % (error, opts["output"]), file=sys.stderr)
    return exit_status or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
