"""Crash-safe files and folders: atomic writes, folders swapped in whole, their locks, and OS errors in words.

Introduced in notebook 00 (``atomic_write_json`` keeps the quiz progress file whole); used by every module
that saves: checkpoints, fine-tuned models, shards, exports.

Folders written atomically (:func:`write_directory_atomically`: checkpoints, fine-tuned models), crash-safe
at every instant. A folder (a checkpoint of hundreds of MB) cannot be written in one system call, so it is
written next to its target and swapped in. The siblings of a target NAME (in NAME's parent folder) are:

  .NAME.lock        the lock every writer (and recovery) holds, through the ``filelock`` package;
  .NAME.tmp-STAMP   being filled (incomplete by definition: garbage once its writer is gone);
  .NAME.new-STAMP   filled, flushed to disk, renamed from .tmp-: complete, waiting to be swapped in;
  .NAME.old-STAMP   a previous NAME moved aside (only on systems without an atomic exchange).

STAMP is the time in nanoseconds and the process id, so names sort by age. A save, holding the lock:

  1. recover (below);                                        NAME is the previous version throughout
  2. fill .NAME.tmp-S, fsync every file, rename it to .NAME.new-S, fsync the parent;
  3. Linux: renameat2(RENAME_EXCHANGE) swaps .NAME.new-S and NAME in one step (then .NAME.new-S holds the
     previous version); other systems: rename NAME to .NAME.old-S, rename .NAME.new-S to NAME (on failure
     .NAME.old-S is renamed back). No target yet: rename .NAME.new-S to NAME;
  4. delete the sibling that holds the previous version.

Recovery (before every save and every load, holding the lock): if NAME is there (and complete, when the
caller can tell), it is the current version and every sibling is deleted. Otherwise the newest complete
sibling (a .new- first: the newer content; then an .old-) becomes NAME, and the rest is deleted. A kill
between any two steps therefore leaves NAME or a sibling that recovery promotes; a failure (disk full, a
rename refused) leaves NAME as it was. Only the lock makes deleting safe: a sibling is never deleted
while its writer still runs. An incomplete NAME that is not empty is kept aside (``.NAME.incomplete-STAMP``),
never deleted. A symlinked NAME keeps its link: the folder it points to is the one replaced; ``""``, ``"."``
and parents of the working folder are refused (:func:`real_target`).

Errors of the operating system are put in words by :func:`explain_os_error` (a full disk, no permission, a
file in the way, ...) and raised as :class:`SaveError`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------------------------------------
# Atomic writes: a file or a whole folder is replaced at once, never left half-written


def current_umask() -> int:
    """The process's umask (the permission bits new files must not get), read without changing it."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/status", encoding="ascii") as fh:  # Linux: readable without changing it
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set it and put it back at once
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write: Callable[[Path], Any]) -> Path:
    """Write a file atomically: ``write(tmp_path)`` fills a temporary file that then replaces ``path``.

    A crash part-way leaves the old file untouched (never a half-written one). The temporary file is
    in the same folder, so the final ``os.replace`` is a rename on one file system. The file gets the
    permissions a plain ``open(path, "w")`` would give (``0o666`` minus the umask).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with contextlib.suppress(OSError):  # mkstemp makes 0600 files (and some writers replace the file):
            os.chmod(tmp_path, 0o666 & ~current_umask())  # give the mode open() gives, honouring the umask
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Atomically write ``text`` (UTF-8) to ``path``. See :func:`atomic_write`."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Atomically write ``obj`` as pretty-printed UTF-8 JSON to ``path``. See :func:`atomic_write`."""
    return atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


# ----------------------------------------------------------------------------------------------------------
# Errors from the operating system, in words


class SaveError(OSError):
    """Saving failed for a reason outside the program (disk full, no permission, a file in the way, ...).

    The message says which, and what to do; ``errno`` is the original error's number (``None`` if it had
    none) and ``__cause__`` the original exception.
    """

    def __init__(self, message: str, errno_number: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno_number


# What torch.save ("[enforce fail at inline_container.cc:672] . unexpected pos 276992 vs 276880") and
# safetensors ("I/O error: No space left on device (os error 28)") say when the disk fills up.
_DISK_FULL_TEXTS = ("unexpected pos", "no space left", "os error 28", "failed writing", "file write failed")


def is_disk_full(err: BaseException) -> bool:
    """True if ``err`` is how Python, torch or safetensors report a full disk (or an exhausted quota)."""
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    return isinstance(err, Exception) and any(text in str(err).lower() for text in _DISK_FULL_TEXTS)


def _free_space(path: Path) -> str:
    for folder in (path, *path.parents):
        with contextlib.suppress(OSError):
            free = shutil.disk_usage(folder).free
            return f"{free / 2**20:.1f} MB" if free < 2**30 else f"{free / 2**30:.1f} GB"
    return "unknown"


def explain_os_error(err: BaseException, path: str | os.PathLike) -> str:
    """What went wrong when writing ``path``, in words, with what to do (one sentence or two).

    Understands ``OSError`` numbers and the ``RuntimeError`` torch raises on a full disk.
    """
    path = Path(path)
    folder = path.parent if path.name else path
    if is_disk_full(err):
        return (
            f"the disk is full ({_free_space(folder)} free on the drive that holds {folder}). Free some "
            "space, or save to a folder on another drive"
        )
    number = getattr(err, "errno", None)
    named = getattr(err, "filename2", None) or getattr(err, "filename", None) or path  # the file in the way
    reasons = {
        errno.EACCES: f"permission denied: you cannot write to {folder}. Choose a folder you own",
        errno.EPERM: f"the operation is not permitted in {folder}. Choose a folder you own",
        errno.EROFS: f"{folder} is on a read-only file system. Choose a writable folder",
        errno.ENOTDIR: f"a part of the path {path} is a file, not a folder. Choose another path",
        errno.EISDIR: f"{named} is a folder where a file was expected. Move it away or choose another path",
        errno.EEXIST: f"{named} already exists and is a file, not a folder. Choose another path",
        errno.ENAMETOOLONG: f"the path {path} is too long for the file system. Choose a shorter one",
        errno.EFBIG: "a file is too large for this file system. Save to another drive",
        errno.EIO: "the disk reported an input/output error (a failing or disconnected drive?)",
        errno.EBUSY: f"{path} is in use (a mount point, or the folder a program works in)",
    }
    if number in reasons:
        return reasons[number]
    if isinstance(err, SaveError):  # already explained (by a nested save)
        return str(err).split(": ", 1)[-1].rstrip(".")
    return getattr(err, "strerror", None) or str(err) or type(err).__name__


def save_error(err: BaseException, path: str | os.PathLike, what: str, after: str = "") -> SaveError:
    """A :class:`SaveError` "Could not save {what} to {path}: {reason}.{after}" for ``err`` (chain it)."""
    reason = explain_os_error(err, path)
    message = f"Could not save {what} to {path}: {reason}." + (f" {after}" if after else "")
    number = errno.ENOSPC if is_disk_full(err) else getattr(err, "errno", None)
    return SaveError(message, number)


# ----------------------------------------------------------------------------------------------------------
# Folders written atomically, crash-safe at every instant (the design: see the module docstring)

_SIBLING_KINDS = ("tmp", "new", "old", "probe")  # probe: pretrain's writability check
_RENAME_EXCHANGE = 2  # from <linux/fs.h>
_AT_FDCWD = -100


def real_target(target: str | os.PathLike) -> Path:
    """The folder a save to ``target`` really writes: symlinks followed (the link is kept, the folder it
    points to is replaced). Refuses what cannot be replaced: ``""``, the current folder or one of its
    parents (``"."``, ``".."``), a file system root."""
    if str(target) == "":
        raise ValueError("The output folder is empty (''); give a folder name, e.g. runs/mini.")
    path = Path(os.path.realpath(Path(target).expanduser()))
    cwd = Path(os.path.realpath(Path.cwd()))
    where = None
    if path == cwd:
        where = "the current folder"
    elif path in cwd.parents:
        where = "a parent of the current folder"
    elif path.parent == path:
        where = "the root of a file system"
    if where:
        raise ValueError(
            f"Cannot save into {str(target)!r}: it is {where}, and saving replaces the whole folder. "
            "Name a new folder instead, e.g. runs/mini."
        )
    return path


def _siblings(target: Path) -> list[tuple[str, Path]]:
    """``(kind, path)`` of the hidden siblings of ``target`` (see above), oldest first within a kind."""
    found = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(target.parent):
            for kind in _SIBLING_KINDS:
                if entry.name.startswith(f".{target.name}.{kind}-"):
                    found.append((kind, Path(entry.path)))
    return sorted(found, key=lambda kp: kp[1].name)


def _stamp() -> str:
    return f"{time.time_ns():020d}-{os.getpid()}"


@contextlib.contextmanager
def directory_lock(target: str | os.PathLike, *, required: bool = True, wait_message: str | None = None):
    """Hold the lock of folder ``target`` (``.NAME.lock`` next to it; re-entrant in one thread, released
    by the OS if the process dies). Yields whether the lock is held: with ``required=False`` a reader goes
    on without it where no lock file can be created (a read-only folder). ``wait_message`` is logged (as a
    warning) if another process holds the lock, before waiting for it."""
    import filelock  # third-party: imported here so that this module stays standard-library-only

    target = Path(os.path.realpath(Path(target).expanduser()))  # one lock (and lock file) per real folder
    lock = filelock.FileLock(target.parent / f".{target.name}.lock", is_singleton=True)
    if not required and not target.parent.is_dir():  # a reader of nothing: create no folders
        yield False
        return
    try:
        try:
            lock.acquire(timeout=0.5 if wait_message else -1)
        except filelock.Timeout:
            logger.warning("%s", wait_message)
            lock.acquire()
        acquired = True
    except OSError:
        if required:
            raise
        acquired = False
    try:
        yield acquired
    finally:
        if acquired:
            # The outermost hold leaves no lock file behind. Safe with filelock, whose acquire() retries
            # if the file it locked was unlinked meanwhile.
            if lock.lock_counter == 1:
                with contextlib.suppress(OSError):
                    os.unlink(lock.lock_file)
            lock.release()


def _exchange(a: Path, b: Path) -> bool:
    """Swap the folders ``a`` and ``b`` in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``, glibc
    2.28+). Returns ``False`` where the platform or the file system cannot (then nothing happened)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # e.g. an old kernel or a network file system: use the fallback
    raise OSError(number, os.strerror(number), str(a), None, str(b))


def _fsync(path: Path) -> None:
    """Flush a file, or a folder's entries, to the disk (best effort: not every system can)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_tree(folder: Path) -> None:
    for root, _, files in os.walk(folder):
        for name in files:
            _fsync(Path(root) / name)
        _fsync(Path(root))


def _remove(path: Path) -> None:
    """Delete a sibling folder (or file); what cannot be deleted now is deleted by the next recovery."""
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def recover_directory(target: str | os.PathLike, is_complete: Callable[[Path], bool] | None = None) -> bool:
    """Finish what a killed or failed :func:`write_directory_atomically` left (see the design above) and
    return whether ``target`` now holds a (complete) folder.

    If ``target`` is missing, empty or not ``is_complete``, the newest complete sibling takes its place (an
    incomplete non-empty ``target`` is kept as ``.NAME.incomplete-STAMP``, never deleted); stale siblings
    are deleted. Needs no write access (and takes no lock) when there is nothing to do.
    """
    target = Path(os.path.realpath(Path(target).expanduser()))

    def present() -> bool:
        return target.is_dir() and (is_complete is None or is_complete(target))

    if not _siblings(target):
        return present()
    with directory_lock(target, required=False) as locked:
        if not locked:  # a read-only folder: nothing can be changed here
            return present()
        if not present() and not (target.exists() and not target.is_dir()):
            rank = {"new": 0, "tmp": 1, "old": 2}  # a .tmp- only counts if the caller's is_complete says so
            candidates = [
                (rank[kind], path)
                for kind, path in _siblings(target)  # listed again: a writer may have finished meanwhile
                if kind in rank and path.is_dir() and (is_complete(path) if is_complete else kind != "tmp")
            ]
            if candidates:
                candidates.sort(key=lambda c: (-c[0], c[1].name))
                _promote(candidates[-1][1], target)  # the lowest rank, then the newest STAMP
        for _, path in _siblings(target):
            _remove(path)
    return present()


def _promote(best: Path, target: Path) -> None:
    """Move the complete sibling ``best`` to ``target`` (missing, empty or incomplete)."""
    if target.is_dir() and any(target.iterdir()):  # incomplete but not empty: keep it, under another name
        aside = target.parent / f".{target.name}.incomplete-{_stamp()}"
        os.rename(target, aside)
        logger.warning(
            "%s was incomplete; it is kept as %s and replaced by %s.", target, aside.name, best.name
        )
    elif target.is_dir():
        target.rmdir()
    os.rename(best, target)
    _fsync(target.parent)


def write_directory_atomically(
    target: str | os.PathLike,
    fill: Callable[[Path], Any],
    *,
    is_complete: Callable[[Path], bool] | None = None,
    what: str = "the folder",
) -> Path:
    """Write a whole folder at once: ``fill(tmp)`` writes a temporary folder next to ``target`` that then
    replaces it, so a reader finds the old or the new complete folder, never a mixture, never nothing.

    Crash-safe at every instant (the design is described above): a kill leaves the previous or the new
    version, which the next save or :func:`recover_directory` puts in place; a failure while writing
    (disk full, no permission) raises :class:`SaveError` naming the cause, and ``target`` is unchanged.
    A symlinked ``target`` keeps its link; the folder it points to is replaced. ``is_complete`` tells a
    complete folder of this kind (used by recovery); ``what`` names it in error messages. Files and
    folders get the permissions the user's umask gives. Used for pretraining checkpoints
    (``bertedu.training.checkpoint``) and fine-tuned model folders. Returns the folder written.
    """
    shown = target
    target = real_target(target)
    if target.exists() and not target.is_dir():
        raise SaveError(
            f"Could not save {what} to {shown}: it exists and is a file, not a folder. Choose another path.",
            errno.EEXIST,
        )
    kept = f"The previous version of {shown} is intact." if target.is_dir() else ""
    with contextlib.ExitStack() as stack:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            stack.enter_context(directory_lock(target))
        except OSError as err:
            raise save_error(err, shown, what) from err
        recover_directory(target, is_complete)
        stamp = _stamp()
        tmp = target.parent / f".{target.name}.tmp-{stamp}"
        new = target.parent / f".{target.name}.new-{stamp}"
        try:
            os.mkdir(tmp)  # mode 0o777 minus the umask (mkdtemp would make it 0700)
            fill(tmp)
            _fsync_tree(tmp)
            os.rename(tmp, new)
            _fsync(target.parent)
        except BaseException as err:
            _remove(tmp)
            if isinstance(err, OSError) or is_disk_full(err):
                raise save_error(err, shown, what, kept) from err
            raise
        try:
            _commit(new, target)
        except OSError as err:
            raise save_error(err, shown, what, kept) from err
    return target


def _commit(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target`` (steps 3 and 4 above). On failure ``target`` keeps its
    previous version (or, if even putting that back failed, recovery finds both versions)."""
    if not (target.exists() or target.is_symlink()):
        try:
            os.rename(new, target)
        except OSError:
            _remove(new)
            raise
        _fsync(target.parent)
        return
    try:
        swapped = _exchange(new, target)
    except OSError:
        _remove(new)
        raise
    if swapped:  # `new` now holds the previous version
        _fsync(target.parent)
        _remove(new)
        return
    old = target.parent / f".{target.name}.old-{_stamp()}"
    try:
        os.rename(target, old)
    except OSError:
        _remove(new)
        raise
    try:
        os.rename(new, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.rename(old, target)  # put the previous version back
            _remove(new)
        raise
    _fsync(target.parent)
    _remove(old)
