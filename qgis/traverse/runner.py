"""Finding the trv-* tools and running one under QGIS Processing: GDAL-style
progress on stderr into the feedback's progress bar, the printed report into
the log, errors into QgsProcessingException, cancellation that stops the tool
and leaves nothing behind."""
import codecs
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess

from qgis.core import QgsProcessingException

FOLDER_SETTING = "TRAVERSE_FOLDER"
# the plugin inside a source tree: <repository>/qgis/traverse/runner.py
SOURCE_BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bin")


def configured_folder():
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:  # QGIS without its Processing plugin
        return ""
    return (ProcessingConfig.getSetting(FOLDER_SETTING) or "").strip()


def locate(exe):
    """The setting 'traverse folder' when set, else the PATH, else bin/ of
    the source tree the plugin runs from."""
    folder = configured_folder()
    if folder:
        path = os.path.join(folder, exe)
        if os.access(path, os.X_OK):
            return path
        raise QgsProcessingException(
            "%s is not in the traverse folder '%s': set Settings > Options > Processing > Providers > "
            "traverse > traverse folder to the folder that holds the trv-* tools" % (exe, folder))
    path = shutil.which(exe)
    if path:
        return path
    path = os.path.join(SOURCE_BIN, exe)
    if os.access(path, os.X_OK):
        return path
    raise QgsProcessingException(
        "cannot find %s: it is not on the PATH, and the plugin does not run from a built source tree. Install "
        "the tools (make install), or set Settings > Options > Processing > Providers > traverse > traverse "
        "folder to the folder that holds them (e.g. the bin/ of a built traverse)" % exe)


# ---- progress -----------------------------------------------------------

# trv_term_progress prints "label: 0...10...20...30...40...50...60...70...80...90...100 - done.":
# 40 ticks, a number every fourth
TICKS = ["0"] + [str(i * 10 // 4) if i % 4 == 0 else "." for i in range(1, 41)]
DONE = " - done."
PROGRESS = re.compile(r"([^:\n]{1,80}): (0[0-9.]*)")


def ticks_prefix(s):
    """(characters of s that continue the tick sequence, ticks completed)."""
    pos = done = 0
    for i, t in enumerate(TICKS):
        if s.startswith(t, pos):
            pos += len(t)
            done = i
        else:
            break
    return pos, done


class StderrParser:
    """Splits the tool's stderr into progress (label, percent) and message
    lines, incrementally: a progress line grows tick by tick, and an error
    may follow its last tick on the same line."""

    def __init__(self, on_progress, on_message):
        self.on_progress, self.on_message = on_progress, on_message
        self.buf = ""

    def feed(self, text):
        self.buf += text
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self._line(line, complete=True)
        if self.buf:
            self.buf = self._line(self.buf, complete=False)

    def close(self):
        if self.buf:
            self._line(self.buf, complete=True)
        self.buf = ""

    def _line(self, line, complete):
        """Handle a line; returns what is left to wait for (incomplete only)."""
        m = PROGRESS.match(line)
        if not m:
            if complete:
                self.on_message(line)
                return ""
            return line
        n, done = ticks_prefix(m.group(2))
        rest = line[m.start(2) + n:]
        self.on_progress(m.group(1), done * 100.0 / 40)
        if not complete and (re.fullmatch(r"[0-9.]*", rest) or DONE.startswith(rest)):
            return line  # the ticks go on
        if rest.startswith(DONE):
            rest = rest[len(DONE):]
        if rest and complete:
            self.on_message(rest)  # an error printed after the last tick
            return ""
        return rest


# ---- running --------------------------------------------------------------

def _temporaries(directory, pid):
    """The files an interrupted tool leaves: the tools write '.<name>.tmp<pid><ext>'
    (and GDAL/SQLite sidecars after it) and rename them when the run succeeds."""
    pat = re.compile(r"^\..*\.tmp%d(?![0-9])" % pid)
    try:
        return [os.path.join(directory, f) for f in os.listdir(directory) if pat.match(f)]
    except OSError:
        return []


def _missing_dirs(paths):
    """Directories among paths (and their parents) that do not exist yet."""
    out = set()
    for p in paths:
        p = os.path.abspath(p)
        while p and not os.path.exists(p):
            out.add(p)
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
    return out


def _clean_up(out_dirs, pid, new_dirs):
    """After a run that did not succeed: the tool's temporaries (left when it
    was stopped or crashed; a failing tool removes its own), then the
    folders the run made, when empty. Returns how many files went."""
    temporaries = [t for d in set(out_dirs) for t in _temporaries(d, pid)] if pid else []
    for t in temporaries:
        os.unlink(t)
    for d in sorted(new_dirs, key=len, reverse=True):  # deepest first
        try:
            os.rmdir(d)  # only when empty: never removes what someone else put there
        except OSError:
            pass
    return len(temporaries)


def run(cmd, feedback, out_dirs=(), make_dirs=(), stdout_path=None):
    """Run cmd (a list), reporting to feedback; returns the printed report.

    out_dirs: the directories the tool writes into; make_dirs: directories of
    output files to create first (as `mkdir -p`). When the run does not
    succeed, the tool's temporary files in out_dirs are removed, and the
    directories that did not exist before the run (when empty).
    stdout_path: where to save the printed report, after success only."""
    tool = os.path.basename(cmd[0])
    new_dirs = _missing_dirs(list(out_dirs) + list(make_dirs))
    for d in make_dirs:
        os.makedirs(d, exist_ok=True)
    feedback.pushCommandInfo(" ".join(shlex.quote(a) for a in cmd))

    errors = []

    def on_message(line):
        if not line.strip():
            return
        if line.startswith("warning: "):
            feedback.pushWarning(line)
        elif line.startswith(tool + ": "):
            errors.append(line[len(tool) + 2:])
            feedback.reportError(line)
        elif line.startswith("Try '%s --help'" % tool):
            pass  # the options come from the algorithm's parameters, not the user's command line
        else:
            feedback.pushInfo(line)

    stage = [None]

    def on_progress(label, percent):
        if label != stage[0]:
            stage[0] = label
            feedback.setProgressText("%s: %s" % (tool, label))
        feedback.setProgress(percent)

    parser = StderrParser(on_progress, on_message)
    report = []
    out_buf = [""]

    def on_stdout(text):
        out_buf[0] += text
        while "\n" in out_buf[0]:
            line, out_buf[0] = out_buf[0].split("\n", 1)
            report.append(line)
            feedback.pushConsoleInfo(line)

    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as e:
        _clean_up(out_dirs, None, new_dirs)
        raise QgsProcessingException("cannot run %s: %s" % (cmd[0], e))
    streams = {proc.stdout.fileno(): (on_stdout, codecs.getincrementaldecoder("utf-8")("replace")),
               proc.stderr.fileno(): (parser.feed, codecs.getincrementaldecoder("utf-8")("replace"))}
    sel = selectors.DefaultSelector()
    for fd in streams:
        sel.register(fd, selectors.EVENT_READ)
    cancelled = False
    try:
        while sel.get_map():
            if feedback.isCanceled():
                cancelled = True
                break
            for key, _ in sel.select(timeout=0.1):
                data = os.read(key.fd, 65536)
                handler, decoder = streams[key.fd]
                if data:
                    handler(decoder.decode(data))
                else:
                    handler(decoder.decode(b"", final=True))
                    sel.unregister(key.fd)
    finally:
        sel.close()
    if cancelled:
        _stop(proc)
        proc.stdout.close()
        proc.stderr.close()
        removed = _clean_up(out_dirs, proc.pid, new_dirs)
        feedback.pushInfo("%s stopped; %d temporary file(s) removed, nothing written" % (tool, removed))
        raise QgsProcessingException("cancelled: %s was stopped before it finished, and wrote nothing" % tool)
    rc = proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    parser.close()
    if out_buf[0]:
        on_stdout("\n")
    if rc != 0:
        _clean_up(out_dirs, proc.pid, new_dirs)
        raise QgsProcessingException("%s failed (%s): %s" % (
            tool, "exit status %d" % rc if rc > 0 else "killed by signal %d" % -rc, "; ".join(errors) or "no message"))
    text = "".join(line + "\n" for line in report)
    if stdout_path:
        tmp = "%s.tmp%d" % (stdout_path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, stdout_path)
    return text


def _stop(proc):
    """SIGTERM, then SIGKILL if the tool has not gone within 5 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
