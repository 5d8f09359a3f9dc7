"""Run real bash as the wrapper's child: file descriptors, signals, streaming, the tail.

The hot path: standard library C modules only (`posix`, `_signal`, `_thread`; `select` only
when a validator's output is copied), no `os`, `subprocess`, `signal` or `threading` (they
import enum and friends).

- The child stays in the wrapper's process group, as a command of `bash -c` does (job
  control is off): a terminal's Ctrl-C, and a harness that kills the whole group, reach it
  exactly as before.
- Signals sent to the wrapper alone (`kill PID`: SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
  SIGUSR2, SIGWINCH) are forwarded to the command's processes (bash and everything below
  it), as a terminal sends Ctrl-C to a whole foreground job: `kill -INT` of the wrapper stops
  `bash -c 'make; sleep 30'` at once, where bash alone would wait for its child. Those the
  kernel sent to the whole group (a terminal's Ctrl-C, a hangup) already reached them and are
  not sent twice.
- A child that dies of a signal makes the wrapper die of the same signal, so the caller sees
  what it would have seen from bash.
- stdin, stdout and stderr are the caller's own descriptors, untouched, unless the command
  is a validator whose output must be read: then stdout and stderr are copied through pipes
  (one pipe when they are the same file, so their order is kept), byte for byte, and the
  last TAIL_BYTES are kept. A background job still writing after the command ended loses
  its output (the pipe closes with the wrapper).
"""

from __future__ import annotations

import _thread
import posix  # not `os`: importing it costs every command ~1.5 ms

from interlock import constants

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command

if TYPE_CHECKING:  # the C module `signal` wraps (the wrapper: no enum import), typed as it
    import signal as _signal
else:
    import _signal


FORWARDED = (
    _signal.SIGTERM,
    _signal.SIGINT,
    _signal.SIGHUP,
    _signal.SIGQUIT,
    _signal.SIGUSR1,
    _signal.SIGUSR2,
    _signal.SIGWINCH,
)
_WAITED = frozenset((*FORWARDED, _signal.SIGCHLD))
_SI_KERNEL = 0x80  # si_code of a signal the kernel generated (a terminal's Ctrl-C, a hangup)
_RESET = (_signal.SIGPIPE, _signal.SIGXFSZ)  # Python ignores these; a child must not


class Tail:
    """The last TAIL_BYTES of what passed through."""

    def __init__(self, limit: int = constants.TAIL_BYTES) -> None:
        self.limit = limit
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * self.limit:
            del self.data[: len(self.data) - self.limit]

    def text(self) -> str:
        return bytes(self.data[-self.limit :]).decode("utf-8", "replace")


def write_all(fd: int, data: bytes) -> bool:
    view = memoryview(data)
    while view:
        try:
            written = posix.write(fd, view)
        except BrokenPipeError:
            return False
        except InterruptedError:
            continue
        view = view[written:]
    return True


class _Copier:
    """Copies the child's pipes to the real descriptors on a thread of its own."""

    def __init__(self, pairs: list[tuple[int, int]], tail: Tail) -> None:
        self.pairs = dict(pairs)  # read end -> real fd
        self.closed: set[int] = set()
        self.tail = tail
        self.wake_r, self.wake_w = posix.pipe()
        self.lock = _thread.allocate_lock()
        self.lock.acquire()
        _thread.start_new_thread(self._run, ())

    def _pump(self, fd: int) -> bool:
        try:
            chunk = posix.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            return False
        self.tail.add(chunk)
        return write_all(self.pairs[fd], chunk)

    def _run(self) -> None:
        import select  # here, not at the top: only a validator's output is copied

        try:
            poller = select.poll()
            for fd in (*self.pairs, self.wake_r):
                poller.register(fd, select.POLLIN)
            live = set(self.pairs)
            while live:
                events = poller.poll()
                if any(fd == self.wake_r for fd, _ in events):
                    break
                for fd, _ in events:
                    if fd in live and not self._pump(fd):
                        # EOF, or the reader of the real descriptor is gone: closing our end
                        # gives the child the SIGPIPE it would have had from a direct write.
                        live.discard(fd)
                        poller.unregister(fd)
                        posix.close(fd)
                        self.closed.add(fd)
            for fd in live:  # the child ended: copy what is buffered, then stop
                posix.set_blocking(fd, False)
                while self._pump(fd):
                    try:
                        if not select.select([fd], [], [], 0)[0]:
                            break
                    except OSError:
                        break
        finally:
            self.lock.release()

    def finish(self) -> None:
        posix.write(self.wake_w, b"x")
        self.lock.acquire()
        for fd in (*self.pairs, self.wake_r, self.wake_w):
            if fd not in self.closed:
                posix.close(fd)


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = posix.fstat(a), posix.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def run(
    bash: str, argv: list[str], env: dict[str, str], *, interpose: bool, stdin: int | None = None
) -> tuple[int, Tail | None]:
    """Run bash; (wait status as posix.waitpid gives it, the output's tail when interposed)."""
    dups: list[tuple[int, int]] = [] if stdin is None else [(stdin, 0)]
    pipes: list[tuple[int, int]] = []  # (read end, real fd)
    ends: list[int] = []
    if interpose:
        shared = _same_file(1, 2)
        for real in (1,) if shared else (1, 2):
            r, w = posix.pipe()
            pipes.append((r, real))
            ends.append(w)
            dups += [(w, 1), (w, 2)] if shared else [(w, real)]
    _signal.pthread_sigmask(_signal.SIG_BLOCK, _WAITED)
    # posix_spawn (vfork and exec): the child starts with no signal blocked and SIGPIPE and
    # SIGXFSZ back to their defaults; the pipes' own ends are close-on-exec.
    try:
        pid = posix.posix_spawn(
            bash,
            argv,
            env,
            file_actions=[(posix.POSIX_SPAWN_DUP2, src, dst) for src, dst in dups],
            setsigmask=(),
            setsigdef=_RESET,
        )
    except OSError:
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, _WAITED)
        for fd in ends + [r for r, _ in pipes]:
            posix.close(fd)
        raise
    for w in ends:
        posix.close(w)
    tail = Tail() if interpose else None
    copier = _Copier(pipes, tail) if interpose and tail is not None else None
    status = _wait(pid)
    if copier is not None:
        copier.finish()
    return status, tail


def _wait(pid: int) -> int:
    while True:
        info = _signal.sigwaitinfo(_WAITED)
        if info.si_signo == _signal.SIGCHLD:
            done, status = posix.waitpid(pid, posix.WNOHANG)
            if done == pid:
                return status
            continue
        if info.si_code != _SI_KERNEL:
            for target in _tree(pid):
                try:
                    posix.kill(target, info.si_signo)
                except ProcessLookupError:
                    pass


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = posix.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(p) for p in handle.read().split()]
        except (OSError, ValueError):
            continue
    return found


def _tree(pid: int) -> list[int]:
    """pid and its descendants, bash first (the command's processes below it after). Listed
    before any is signalled, and bash first: were its child signalled first, bash could reap
    it and run the line's next command before its own signal arrived (under load it did).
    A bash that gets SIGINT while it waits for a child still waits for it, as it would for a
    terminal's Ctrl-C."""
    order: list[int] = []
    pending = [pid]
    while pending and len(order) < 4096:
        current = pending.pop(0)
        order.append(current)
        pending += _children(current)
    return order


def exit_like(status: int) -> int:
    """Exit the way the child did: die of its signal, or return its exit status."""
    if posix.WIFSIGNALED(status):
        sig = posix.WTERMSIG(status)
        _signal.signal(sig, _signal.SIG_DFL)
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, {sig})
        posix.kill(posix.getpid(), sig)
        return 128 + sig
    return posix.waitstatus_to_exitcode(status)
