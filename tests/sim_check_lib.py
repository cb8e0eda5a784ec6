"""What the protocol checks of trv-sim --serve share (tests/sim_server_check.py,
tests/sim_virtual_check.py): the PASS/FAIL line, starting a server on a free
port, and a request that must get a named error."""
import subprocess
import sys


def check(name, cond, why=""):
    print("PASS %s" % name if cond else "FAIL %s: %s" % (name, why), flush=True)


def start(sim, terrain, scenario, outdir):
    """trv-sim --serve 0 on the run; returns the process and the port it printed."""
    p = subprocess.Popen([sim, "--terrain", terrain, "--scenario", scenario, "-o", outdir, "--no-timing", "-q",
                          "--serve", "0"], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if "listening on" not in line:
        print("FAIL start: %s%s" % (line, p.stderr.read()))
        sys.exit(1)
    return p, int(line.rsplit(":", 1)[1])


def expect_error(sim, line, name, label):
    """LINE sent raw must get the error NAME, stamped with the time t."""
    r = sim.send_line(line)
    check("error %s (%s)" % (label, name), r.get("type") == "error" and r.get("error") == name and "t" in r,
          "%r -> %r" % (line[:100], r))
