"""The live view of a simulation stepped from Python: served while it lives, frames of its
advances, the page's pause holding `advance` between steps and its stop raising
KeyboardInterrupt, results equal to an unwatched simulation's bit for bit, and bad ports."""

import http.client
import json
import struct
import threading
import time

import numpy as np
import pytest

import hydrokern as hk


def case():
    c = hk.Case.scenario("dam-break")
    c["grid.nx"] = 40
    c["grid.ny"] = 40
    c["run.backend"] = "cpu"
    return c


def request(url, method="GET", path="/", body=None):
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, body=body)
    r = c.getresponse()
    return r.status, r.read()


def status(url):
    """The run's status, as the page's event stream gives it."""
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/events?fps=10")
    r = c.getresponse()
    while True:
        line = r.fp.readline().decode()
        if line.startswith('data: {"balance"'):
            c.close()
            return json.loads(line[6:])


def wait_for(what, ok, within=30.0):
    end = time.time() + within
    while not ok():
        assert time.time() < end, f"waited {within} s for {what}"
        time.sleep(0.02)


def test_a_watched_simulation_shows_its_frames_and_equals_an_unwatched_one():
    plain = hk.Simulation(case())
    plain.advance(until=0.25)
    plain.advance(until=0.5)
    sim = hk.Simulation(case())
    view = sim.view(port=0)
    assert view.url.startswith("http://127.0.0.1:") and f'src="{view.url}"' in view._repr_html_()
    code, setup = request(view.url, path="/setup")
    assert code == 200
    setup = json.loads(setup)
    assert (setup["w"], setup["h"]) == (40, 40) and [l["name"] for l in setup["layers"]] == ["depth", "surface", "speed"]
    # Each advance's end shows: the latest frame is the state where it stopped.
    seqs = []
    for until in (0.25, 0.5):
        sim.advance(until=until)
        code, frame = request(view.url, path="/frame?layer=depth")
        assert code == 200 and frame[:4] == b"HKV1"
        seq, t, step = struct.unpack("<Idq", frame[12:32])
        assert (t, step) == (sim.time, sim.step)
        seqs.append(seq)
    assert seqs[1] > seqs[0] >= 2, seqs
    st = status(view.url)
    assert st["t"] == pytest.approx(0.5) and st["step"] == sim.step
    for name, a in plain.state().items():
        assert np.array_equal(a, sim.state()[name]), name
    sim.close()


def test_the_page_s_pause_holds_advance_and_its_stop_raises_keyboardinterrupt():
    sim = hk.Simulation(case())
    view = sim.view(port=0, paused=True)
    seen = {}

    # A viewer on another thread; the simulation advances on this one (it stays on the thread
    # that made it).
    def viewer():
        try:
            time.sleep(0.5)
            seen["paused at start"] = status(view.url)
            seen["resumed"] = request(view.url, "POST", "/control", "resume")[0]
            wait_for("steps", lambda: status(view.url)["step"] > 3)
            seen["paused"] = request(view.url, "POST", "/control", "pause")[0]
            time.sleep(0.4)
            held = status(view.url)["step"]
            time.sleep(0.4)
            seen["held"] = (held, status(view.url)["step"])
            seen["bogus"] = request(view.url, "POST", "/control", "bogus")[0]
        finally:
            seen["stopped"] = request(view.url, "POST", "/control", "stop")[0]

    thread = threading.Thread(target=viewer)
    thread.start()
    with pytest.raises(KeyboardInterrupt, match="stopped from the live view"):
        sim.advance(until=1e6)
    thread.join(timeout=30)
    assert seen["paused at start"]["step"] == 0 and seen["paused at start"]["state"] == "paused"
    assert (seen["resumed"], seen["paused"], seen["bogus"], seen["stopped"]) == (204, 204, 400, 204)
    held, later = seen["held"]
    assert held == later and held > 3, seen["held"]
    # The simulation is whole: its state is readable where it stopped.
    assert sim.step >= held and np.isfinite(sim.state()["h"]).all()
    sim.close()


def test_bad_ports_and_a_second_view_are_refused():
    sim = hk.Simulation(case())
    with pytest.raises(hk.CaseError, match="port"):
        sim.view(port=70000)
    view = sim.view(port=0)
    port = int(view.url.rstrip("/").rsplit(":", 1)[1])
    with pytest.raises(hk.CaseError, match="served already"):
        sim.view(port=0)
    other = hk.Simulation(case())
    with pytest.raises(hk.CaseError, match=f"cannot listen on 127.0.0.1:{port}"):
        other.view(port=port)
    sim.close()
    other.close()
