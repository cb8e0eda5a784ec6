#!/usr/bin/env python3
"""make mutants: apply each semantic mutant of tests/mutants.txt alone to a
copy of the tree, rebuild, run the tests it names, and report the survivors
(docs/testing.md).

A mutant names a source file, one or more (find, replace) pairs of exact
code fragments (each fragment must occur exactly once in the file when its
turn comes, else the mutant is "stale": the list has drifted from the code),
what it changes, and the tests to run. Each mutant is:

  killed        a test failed (or hung past its time limit)
  SURVIVED      every named test passed with the mutant in place
  stale         a fragment is not in the file exactly once: fix the list
  build-failed  the mutated tree does not compile: fix the list (not a kill)

Environment:
  MUTANTS=a,b     only the mutants whose id contains a or b
  MUTANTS_MIN=95  exit 1 when fewer than 95 % of the mutants run are killed
  MUTANTS_KEEP=1  keep the copy of the tree (its path is printed)
  MUTANTS_LIST=f  another list (default tests/mutants.txt)
  MUTANTS_JOBS=n  make -jn in the copy (default 2)
  MUTANTS_CHECK=1 only check the list against the tree (fragments, tests): no build

Exit status: 0, 1 below MUTANTS_MIN, 2 when the list is stale, does not
build, or the unmutated tree fails a named test.

Python rather than sh: the fragments are C code full of quotes, backslashes
and regex characters, which Python matches and counts as plain strings
(sed or awk would need each one escaped), and the per-test time limit has
to kill a tool script's whole process group.
"""

import fnmatch
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {"build", "bin", "lib", "out", ".git"}
KEYS = {"file", "find", "replace", "what", "tests"}


def die(msg, code=2):
    print("mutants: " + msg, file=sys.stderr)
    sys.exit(code)


def parse(path):
    """The list: [id] headers, then 'key: value' lines; find/replace repeat
    in pairs; '#' lines and blank lines are ignored."""
    mutants, cur = [], None
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (os.path.relpath(path, ROOT), lineno)
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("["):
                if not line.endswith("]"):
                    die("%s: a header is [id]" % where)
                cur = {"id": line[1:-1].strip(), "line": where, "edits": [], "tests": []}
                if any(m["id"] == cur["id"] for m in mutants):
                    die("%s: mutant %s repeated" % (where, cur["id"]))
                mutants.append(cur)
                continue
            key, sep, val = line.partition(":")
            key = key.strip()
            if not sep or key not in KEYS or cur is None:
                die("%s: expected [id] or one of %s: value" % (where, ", ".join(sorted(KEYS))))
            val = val[1:] if val.startswith(" ") else val
            if key == "find":
                cur["edits"].append([val, None])
            elif key == "replace":
                if not cur["edits"] or cur["edits"][-1][1] is not None:
                    die("%s: replace without its find" % where)
                cur["edits"][-1][1] = val
            elif key == "tests":
                cur["tests"] += val.split()
            else:
                cur[key] = val.strip()
    for m in mutants:
        missing = [k for k in ("file", "what") if not m.get(k)]
        if not m["edits"] or any(r is None for _, r in m["edits"]):
            missing.append("find/replace")
        if not m["tests"]:
            missing.append("tests")
        if missing:
            die("%s: mutant %s lacks %s" % (m["line"], m["id"], ", ".join(missing)))
    return mutants


def copy_tree(dst):
    def ignore(d, names):
        return [n for n in names if n in SKIP_DIRS] if os.path.samefile(d, ROOT) else []
    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)


def resolve_tests(tree, patterns):
    """Test names (globs allowed) -> [(name, argv, make target or None)]."""
    have = sorted(os.listdir(os.path.join(tree, "tests")))
    out = []
    for pat in patterns:
        if pat.endswith(".sh"):
            hits = [n for n in have if n.startswith("tool_") and fnmatch.fnmatch(n, pat)]
            found = [(n, ["sh", "tests/" + n], None) for n in hits]
        else:
            hits = [n[:-2] for n in have if n.startswith("test_") and n.endswith(".c") and fnmatch.fnmatch(n[:-2], pat)]
            found = [(n, ["build/rel/tests/" + n], "build/rel/tests/" + n) for n in hits]
        if not found:
            return None, pat
        out += [t for t in found if t not in out]
    return out, None


def test_env(tree):
    """The Makefile's TEST_ENV, evaluated in the copy (so its paths are the copy's)."""
    mk = os.path.join(tree, "build", "print-env.mk")
    os.makedirs(os.path.dirname(mk), exist_ok=True)
    with open(mk, "w") as f:
        f.write("mutants-print-test-env:\n\t@echo '$(TEST_ENV)'\n")
    out = subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", mk, "mutants-print-test-env"],
                         cwd=tree, capture_output=True, text=True)
    if out.returncode:
        die("cannot read TEST_ENV from the Makefile: " + out.stderr.strip())
    env = dict(os.environ)
    for word in out.stdout.split():
        k, sep, v = word.partition("=")
        if sep:
            env[k] = v
    return env


def build(tree, targets, jobs, log):
    with open(log, "w") as f:
        r = subprocess.run(["make", "-j%d" % jobs, "--no-print-directory", "all"] + targets, cwd=tree, stdout=f,
                           stderr=subprocess.STDOUT)
    return r.returncode == 0


def run_test(tree, env, argv, limit, log):
    """0 passed, 1 failed, 2 over the time limit (its process group killed)."""
    with open(log, "w") as f:
        p = subprocess.Popen(argv, cwd=tree, env=env, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            return 0 if p.wait(timeout=limit) == 0 else 1
        except subprocess.TimeoutExpired:
            for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    pass
            return 2


def apply(text, edits):
    """The mutated text, or (None, fragment) when a fragment is not there exactly once."""
    for find, repl in edits:
        n = text.count(find)
        if n != 1:
            return None, "%r occurs %d times" % (find, n)
        text = text.replace(find, repl)
    return text, None


def tail(path, n=15):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def check_only(mutants):
    bad = 0
    for m in mutants:
        path = os.path.join(ROOT, m["file"])
        why = None
        if not os.path.isfile(path):
            why = "no file " + m["file"]
        else:
            with open(path, encoding="utf-8") as f:
                why = apply(f.read(), m["edits"])[1]
        if not why and resolve_tests(ROOT, m["tests"])[1]:
            why = "no test matches " + resolve_tests(ROOT, m["tests"])[1]
        if why:
            bad += 1
            print("stale %s (%s): %s" % (m["id"], m["line"], why))
    print("mutants: %d in the list, %d stale" % (len(mutants), bad))
    sys.exit(2 if bad else 0)


def main():
    listfile = os.path.join(ROOT, os.environ.get("MUTANTS_LIST", "tests/mutants.txt"))
    mutants = parse(listfile)
    sel = [s for s in os.environ.get("MUTANTS", "").split(",") if s.strip()]
    if sel:
        mutants = [m for m in mutants if any(s.strip() in m["id"] for s in sel)]
        if not mutants:
            die("no mutant id contains any of: " + ", ".join(sel))
    jobs = int(os.environ.get("MUTANTS_JOBS", "2"))
    keep = os.environ.get("MUTANTS_KEEP", "") not in ("", "0")
    floor = float(os.environ["MUTANTS_MIN"]) if os.environ.get("MUTANTS_MIN") else None

    if os.environ.get("MUTANTS_CHECK", "") not in ("", "0"):
        return check_only(mutants)

    t_start = time.time()
    tree = tempfile.mkdtemp(prefix="trv-mutants-")
    work = os.path.join(tree, "src-tree")
    logs = os.path.join(tree, "logs")
    os.makedirs(logs)
    results = []
    try:
        copy_tree(work)
        env = test_env(work)
        # every named test, resolved in the copy; a name that matches nothing is a stale list
        for m in mutants:
            if not os.path.isfile(os.path.join(work, m["file"])):
                die("%s: mutant %s: no file %s" % (m["line"], m["id"], m["file"]))
            m["resolved"], bad = resolve_tests(work, m["tests"])
            if bad:
                die("%s: mutant %s: no test matches %s" % (m["line"], m["id"], bad))
        tests = []
        for m in mutants:
            tests += [t for t in m["resolved"] if t not in tests]
        targets = [t[2] for t in tests if t[2]]
        print("mutants: %d mutants, %d tests; copy in %s" % (len(mutants), len(tests), work), flush=True)
        # the unmutated tree must build and pass: the baseline, and each test's time limit
        if not build(work, targets, jobs, os.path.join(logs, "build-baseline.log")):
            die("the unmutated tree does not build:\n" + tail(os.path.join(logs, "build-baseline.log")))
        base = {}
        for name, argv, _ in tests:
            t0 = time.time()
            log = os.path.join(logs, "baseline-%s.log" % name)
            if run_test(work, env, argv, 1800, log):
                die("the unmutated tree fails %s:\n%s" % (name, tail(log)))
            base[name] = time.time() - t0
            print("  baseline %-22s %6.1f s" % (name, base[name]), flush=True)
        t_base = time.time() - t_start

        for i, m in enumerate(mutants, 1):
            t0 = time.time()
            path = os.path.join(work, m["file"])
            with open(path, encoding="utf-8") as f:
                orig = f.read()
            text, why = apply(orig, m["edits"])
            res = {"id": m["id"], "m": m}
            if text is None:
                res.update(status="stale", detail=why)
            else:
                try:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                    mtargets = [t[2] for t in m["resolved"] if t[2]]
                    blog = os.path.join(logs, "build-%s.log" % m["id"])
                    if not build(work, mtargets, jobs, blog):
                        res.update(status="build-failed", detail=tail(blog, 8))
                    else:
                        res.update(status="SURVIVED", detail="")
                        # cheapest first; the first failure kills it
                        for name, argv, _ in sorted(m["resolved"], key=lambda t: base[t[0]]):
                            limit = max(60.0, 10 * base[name])
                            rc = run_test(work, env, argv, limit, os.path.join(logs, "%s--%s.log" % (m["id"], name)))
                            if rc:
                                res.update(status="killed", detail=name + (" (timeout)" if rc == 2 else ""))
                                break
                finally:
                    # restored with a new mtime: the next build recompiles it
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(orig)
            res["secs"] = time.time() - t0
            results.append(res)
            print("[%3d/%d] %-44s %-12s %-26s %5.0f s" % (i, len(mutants), m["id"], res["status"],
                                                          res["detail"] if res["status"] == "killed" else "",
                                                          res["secs"]), flush=True)
    finally:
        if keep:
            print("mutants: the copy is kept in %s (logs in %s)" % (work, logs))
        else:
            shutil.rmtree(tree, ignore_errors=True)

    wall = time.time() - t_start
    count = {s: sum(r["status"] == s for r in results) for s in ("killed", "SURVIVED", "stale", "build-failed")}
    scored = count["killed"] + count["SURVIVED"]
    score = 100.0 * count["killed"] / scored if scored else 0.0
    print()
    for r in results:
        if r["status"] != "killed":
            print("%s %s (%s): %s" % (r["status"], r["id"], r["m"]["file"], r["m"]["what"]))
            if r["detail"]:
                print("    " + r["detail"].rstrip().replace("\n", "\n    "))
    print("\nmutants: %d run: %d killed, %d survived, %d stale, %d build-failed; score %.1f %% (%d/%d); "
          "%.0f s (baseline %.0f s), make -j%d"
          % (len(results), count["killed"], count["SURVIVED"], count["stale"], count["build-failed"], score,
             count["killed"], scored, wall, t_base, jobs))
    if count["stale"] or count["build-failed"]:
        die("the list needs fixing (stale or build-failed mutants above)", 2)
    if floor is not None and score < floor:
        die("score %.1f %% is below MUTANTS_MIN=%g %%" % (score, floor), 1)


if __name__ == "__main__":
    main()
