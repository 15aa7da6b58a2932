"""Writing a file so that it is either complete or not there: a temporary file
beside the target, renamed over it once everything is written.

Model saves (``model_io.write_container``), the commands' output files
(``commands._common.open_output``), exported models and figures all write
through :func:`atomic_file`. A failed write (an exception, Ctrl-C, a full disk)
leaves the previous file, or none, and no temporary; a process killed
mid-write leaves its temporary, which the next write into that directory
removes once it is provably stale (:func:`clean_stale_temporaries`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import io
import os
import re
import secrets
import socket
import stat
from typing import IO, Any, Iterator, Optional, Tuple, Union

from .._errors import ConjunctError

__all__ = ["atomic_file", "clean_stale_temporaries", "same_file"]

Path = Union[str, os.PathLike]

# Temporary files are named .conjunct-<save|out>-<host>-<pid>-<random>.tmp: <host> tags
# the machine, boot and pid namespace, so a later write into the same directory can
# prove a leftover stale (its writer's pid is gone) and remove it.
_TMP_RE = re.compile(r"^\.conjunct-(?:save|out)-([0-9a-f]{12})-([0-9]+)-[0-9a-z]+\.tmp$")

_KINDS = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO",
          stat.S_IFSOCK: "a socket"}


@functools.lru_cache(maxsize=1)
def _host_tag() -> str:
    parts = [socket.gethostname()]
    for path in ("/proc/sys/kernel/random/boot_id",):
        try:
            with open(path) as f:
                parts.append(f.read().strip())
        except OSError:
            pass
    try:
        parts.append(os.readlink("/proc/self/ns/pid"))
    except OSError:
        pass
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=6).hexdigest()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # exists (another user's), or not a pid we can judge: keep its file
    return True


def clean_stale_temporaries(directory: str) -> int:
    """Remove temporary files that writes into ``directory`` left behind when
    their process died; returns how many. Only provably stale files go: ours
    from this machine, boot and pid namespace whose writer is gone."""
    if not hasattr(os, "kill"):
        return 0
    tag, removed = _host_tag(), 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(".conjunct-"):
            continue
        m = _TMP_RE.match(entry.name)
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if m is not None and m.group(1) == tag and not _pid_alive(int(m.group(2))):
                os.unlink(entry.path)
                removed += 1
        except OSError:  # gone already, or not ours to remove
            pass
    return removed


def _target(path: str, action: str, special: bool) -> Tuple[str, Optional[os.stat_result]]:
    """The file a write replaces, and its status (None when new). Symlinks are
    followed: the link stays and its target gets the new content. A directory
    is refused; so is anything but a regular file unless ``special`` (then the
    caller writes into it: a device or FIFO cannot be replaced by a rename)."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        directory = os.path.dirname(target)
        if not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, f"cannot {action} {path}: no such directory {directory!r}",
                                    path) from None
        return target, None
    except OSError as e:
        raise OSError(e.errno, f"cannot {action} {path}: {e.strerror}", path) from None
    if stat.S_ISDIR(st.st_mode):
        raise ConjunctError(f"cannot {action} {path}: it is a directory; give a file name")
    if not stat.S_ISREG(st.st_mode) and not special:
        what = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise ConjunctError(f"cannot {action} {path}: it is {what}; "
                           + ("models are saved to regular files" if action.startswith("save") else "write to a regular file"))
    return target, st


def _named(e: OSError, path: str, tmp: Optional[str] = None) -> OSError:
    """``e`` naming ``path`` when it names no file or only the temporary one."""
    if e.filename is not None and e.filename != tmp:
        return e
    return OSError(e.errno, e.strerror or str(e), path)


class _Writes:
    """A file object whose write errors name the file the user asked for (a
    full disk says which file), not the temporary one or none."""

    def __init__(self, f: IO, path: str, tmp: Optional[str]):
        self._f, self._path, self._tmp = f, path, tmp

    def _fail(self, e: Exception):
        if isinstance(e, UnicodeEncodeError):  # text that no UTF-8 file can hold: bad input, not a traceback
            bad = ", ".join(f"U+{ord(c):04X}" for c in e.object[e.start:e.end][:3])
            raise ConjunctError(f"{self._path}: cannot write {bad} as UTF-8 ({e.reason}): the input holds text that "
                                f"is not Unicode (a lone surrogate: bytes that were not UTF-8?)") from None
        assert isinstance(e, OSError)
        raise _named(e, self._path, self._tmp) from e

    def write(self, data):
        try:
            return self._f.write(data)
        except (OSError, UnicodeEncodeError) as e:
            self._fail(e)

    def writelines(self, lines):
        try:
            return self._f.writelines(lines)
        except (OSError, UnicodeEncodeError) as e:
            self._fail(e)

    def flush(self):
        try:
            return self._f.flush()
        except (OSError, UnicodeEncodeError) as e:
            self._fail(e)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __iter__(self):
        return iter(self._f)


@contextlib.contextmanager
def atomic_file(path: Path, *, text: bool = False, action: str = "write", special: bool = False) -> Iterator[Any]:
    """A file to write ``path`` through: a temporary beside it, renamed over
    ``path`` when the ``with`` block ends normally, removed when it raises
    (Ctrl-C included).

    An existing file keeps its mode (and owner and group, when permitted); a
    new one gets 0666 less the umask. Readers that opened or mapped the old
    file keep reading it: it is never truncated in place. ``text`` opens the
    temporary as UTF-8 text (``\\n`` line ends); ``action`` words errors (``cannot {action}
    PATH: ...``); ``special`` writes devices, FIFOs and sockets in place
    (they cannot be renamed over) instead of refusing them. The file and its
    directory are fsynced, so that the rename survives a crash. Every OS
    error names ``path``.
    """
    path = os.fspath(path)
    # /dev/stdout, /dev/fd/N (a shell's >(...)) and the like lead through /proc's links to
    # pipes or to a file the shell opened: they are written in place, as they were named.
    in_place = special and os.path.abspath(path).startswith(("/dev/", "/proc/"))
    target, old = (path, None) if in_place else _target(path, action, special)
    if in_place or (old is not None and not stat.S_ISREG(old.st_mode)):  # a device, FIFO or socket: write into it
        try:
            dev: IO[Any] = open(target, "w", encoding="utf-8", newline="\n") if text else open(target, "wb")
        except OSError as e:
            raise _named(e, path) from None
        with dev:
            yield _Writes(dev, path, None)
            try:
                dev.flush()
            except OSError as e:
                raise _named(e, path) from e
        return
    directory = os.path.dirname(target)
    clean_stale_temporaries(directory)
    kind = "save" if action.startswith("save") else "out"
    tmp = os.path.join(directory, f".conjunct-{kind}-{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        # 0o666 here: the kernel applies the umask, as for any new file.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        raise OSError(e.errno, f"cannot {action} {path}: {e.strerror} (directory {directory!r})", path) from None
    raw = os.fdopen(fd, "wb")
    f: IO[Any] = io.TextIOWrapper(raw, encoding="utf-8", newline="\n") if text else raw
    try:
        if old is not None:
            _keep_owner_and_mode(fd, old)
        yield _Writes(f, path, tmp)
        try:  # only errors of these steps are about the file; the block's own name their files
            f.flush()
            os.fsync(fd)
            f.close()
            os.replace(tmp, target)
        except OSError as e:
            raise _named(e, path, tmp) from e
    except BaseException:
        with contextlib.suppress(OSError, ValueError):
            f.close()  # flushes what is left, and may fail again: the file goes anyway
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one existing file: the same path, a symlink
    to it or a hard link (the same device and inode)."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    if not hasattr(os, "fchmod"):  # not POSIX: the platform's defaults apply
        return
    if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            try:
                os.fchown(fd, -1, old.st_gid)  # a group we are in
            except OSError:
                pass
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _fsync_directory(directory: str) -> None:
    """Make the rename durable (where the platform allows it)."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
