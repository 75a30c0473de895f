"""The web app over HTTP (Starlette's test client): every endpoint with good and bad input, sessions, bounds."""

import asyncio
import json
import random

import pytest

pytest.importorskip("starlette")
httpx2 = pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from agents.arena.web.app import MAX_BODY, create_app  # noqa: E402
from agents.arena.web.records import RecordLibrary, twin_index  # noqa: E402
from agents.arena.web.serve import main as serve_main  # noqa: E402
from agents.arena.web.tables import Table, TableError, TableStore, build_agents  # noqa: E402
from belote_env.rules.record import deal_record, read_records, record_line, replay_record, write_records  # noqa: E402
from belote_env.rules.state import play_random_deal  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    """A tournament-like record folder: two duplicate tables of 3 pairs, plus a file that is not JSON."""
    folder = tmp_path_factory.mktemp("records")
    variant = load_variant("coinche")
    rng = random.Random(5)
    records = []
    for pair in range(3):
        for table in (0, 1):
            rec = deal_record(play_random_deal(variant, rng, dealer=0))
            rec["meta"] = {"match": ["random", "heuristic"], "pair": pair, "table": table, "deal": 0,
                           "a_seats": [0, 2] if table == 0 else [1, 3], "pair_diff": 0.0}
            records.append(rec)
    (folder / "coinche").mkdir()
    write_records(folder / "coinche" / "random__heuristic.jsonl", records)
    (folder / "broken.jsonl").write_text("{not json\n")
    return folder


@pytest.fixture
def client(record_dir):
    with TestClient(create_app([record_dir])) as c:
        yield c


def new_table(client, **body):
    r = client.post("/api/tables", json={"mode": "play", "partner": "random", "opponents": "random", **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_page_and_its_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
        assert f'"{asset}"' in page.text  # the page loads them from this server, nothing from elsewhere
    assert "http://" not in page.text and "https://" not in page.text
    assert client.get("/static/../app.py").status_code == 404


def test_options_list_variants_and_only_registered_agents(client):
    opts = client.get("/api/options").json()
    assert "coinche" in opts["variants"] and "heuristic" in opts["agents"] and opts["records"] is True
    assert not any("/" in a or a.endswith(".pt") for a in opts["agents"])


def test_a_whole_deal_played_through_the_api_replays_to_its_record(client):
    reply = new_table(client, seed=11, seat=2)
    key, frame = reply["table"], reply["frames"][-1]
    assert frame["to_act"] == 2 and frame["legal"] and reply["human"] == 2
    assert [h is None for h in frame["hands"]] == [True, True, False, True]  # only the human's hand is shown
    rng = random.Random(0)
    moves = 0
    while not frame["paused"]:
        frames = client.post(f"/api/tables/{key}/act", json={"action": rng.choice(frame["legal"])["name"]}).json()
        frame = frames["frames"][-1]
        moves += 1
        assert moves < 100
    assert frame["result"] is not None and frame["dealt"] and frame["over"]
    lines = client.get(f"/api/tables/{key}/records").text.splitlines()
    assert len(lines) == 1
    deal = replay_record(json.loads(lines[0]))
    assert list(deal.result.scores) == frame["result"]["scores"]
    again = client.post(f"/api/tables/{key}/next").json()  # the next episode, from the table's next seed
    assert again["episodes"] == 2 and again["frames"][0]["phase"] == "bidding"


def test_an_illegal_move_is_refused_and_the_table_is_unchanged(client):
    reply = new_table(client, seed=3)
    key = reply["table"]
    before = client.get(f"/api/tables/{key}").json()["frames"][0]
    legal = {m["name"] for m in before["legal"]}
    illegal = next(n for n in ("JH", "7S", "AC", "pass", "80 S") if n not in legal)
    for bad in (illegal, 999, -1, True, 3.0, None, [1], "", "x" * 100, "J\n\nH"):
        r = client.post(f"/api/tables/{key}/act", json={"action": bad})
        assert r.status_code == 400 and "\n" not in r.json()["error"], (bad, r.text)
    r = client.post(f"/api/tables/{key}/act", content=b'{"action": "\\ud800"}')  # a lone surrogate
    assert r.status_code == 400, r.text
    assert client.get(f"/api/tables/{key}").json()["frames"][0] == before
    r = client.post(f"/api/tables/{key}/step", json={"n": 1})
    assert r.status_code == 400 and "played" in r.json()["error"]
    r = client.post(f"/api/tables/{key}/next")
    assert r.status_code == 400 and "still being played" in r.json()["error"]


def test_watch_steps_one_agent_move_at_a_time_with_the_policy_attached(client):
    r = client.post("/api/tables", json={"mode": "watch", "seats": ["ppo_coinche", "heuristic", "random", "heuristic"],
                                         "seed": 4})
    assert r.status_code == 200, r.text
    reply = r.json()
    key = reply["table"]
    assert reply["human"] is None and all(h is not None for h in reply["frames"][-1]["hands"])
    seen_probs = False
    for _ in range(200):
        frames = client.post(f"/api/tables/{key}/step", json={"n": 1}).json()["frames"]
        assert len(frames) <= 1
        if not frames:
            break
        ev = frames[-1]["event"]
        if ev["seat"] == 0:
            assert ev["extras"]["probs"] and "value" in ev["extras"]
            seen_probs = True
        if frames[-1]["paused"]:
            break
    assert seen_probs and frames[-1]["paused"]
    r = client.post(f"/api/tables/{key}/act", json={"action": 0})
    assert r.status_code == 400 and "watched" in r.json()["error"]


def test_bad_table_requests_get_one_line_4xx(client):
    cases = [
        ({"mode": "solo"}, "mode"), ({"variant": "poker"}, "variant"), ({"seat": 4}, "seat"), ({"seat": "0"}, "seat"),
        ({"seat": True}, "seat"), ({"seed": -1}, "seed"), ({"seed": 2**70}, "seed"), ({"seed": 1.5}, "seed"),
        ({"partner": "agents.registry:make_agent"}, "partner"), ({"opponents": "/etc/passwd"}, "opponents"),
        ({"partner": "x.pt"}, "partner"), ({"colour": 1}, "unknown field"), ({"episode": "match"}, "episode"),
        ({"mode": "watch", "seats": ["random"] * 3}, "seats"), ({"mode": "watch", "seats": "random"}, "seats"),
        ({"mode": "watch", "seats": ["random", "random", "random", "os:getcwd"]}, "unknown agent"),
    ]
    for body, word in cases:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400, (body, r.text)
        assert word in r.json()["error"] and "\n" not in r.json()["error"], (body, r.json())
    for raw in (b"{bad", b"[1, 2]", b"\xff\xfe", b'"text"', b"[" * 100000):
        r = client.post("/api/tables", content=raw)
        assert r.status_code in (400, 413), (raw[:10], r.text)
    r = client.post("/api/tables", content=b" " * (MAX_BODY + 1))
    assert r.status_code == 413
    assert client.get("/api/tables/nope").status_code == 404
    assert client.post("/api/tables/nope/act", json={"action": 1}).status_code == 404
    assert client.delete("/api/tables/nope").status_code == 404
    assert client.get("/api/tables").status_code == 405
    assert client.get("/nothing/here").json() == {"error": "Not Found"}


def test_sessions_are_isolated(record_dir):
    app = create_app([record_dir])
    with TestClient(app) as alice, TestClient(app) as bob:
        key = new_table(alice, seed=1)["table"]
        assert alice.get(f"/api/tables/{key}").status_code == 200
        assert bob.get(f"/api/tables/{key}").status_code == 404
        assert bob.post(f"/api/tables/{key}/act", json={"action": 32}).status_code == 404
        assert bob.delete(f"/api/tables/{key}").status_code == 404
        assert alice.delete(f"/api/tables/{key}").status_code == 200
        assert alice.get(f"/api/tables/{key}").status_code == 404


def test_the_store_is_bounded_and_idle_tables_expire():
    now = [0.0]
    store = TableStore(max_tables=3, per_session=2, idle_s=60, clock=lambda: now[0])

    def table():
        return Table("coinche", build_agents([None, "random", "random", "random"], {"random"}),
                     [None, "random", "random", "random"], seed=0)

    a1 = store.add("a", table())
    now[0] += 1
    a2 = store.add("a", table())
    now[0] += 1
    a3 = store.add("a", table())  # the session's least recently used table goes
    assert store.get("a", a1) is None and store.get("a", a2) is not None and len(store) == 2
    now[0] += 1
    assert store.get("a", a3) is not None  # a3 used after a2
    now[0] += 1
    store.add("b", table())
    now[0] += 1
    store.add("c", table())  # the store's least recently used table goes
    assert len(store) == 3 and store.get("a", a2) is None and store.get("a", a3) is not None
    now[0] += 61
    store.expire()
    assert len(store) == 0 and not store.sessions


def test_records_are_listed_and_replayed_with_their_twin(client, record_dir):
    files = client.get("/api/records").json()["files"]
    assert [f["file"] for f in files] == ["broken.jsonl", "coinche/random__heuristic.jsonl"]
    key = "coinche/random__heuristic.jsonl"
    deals = client.get("/api/records/deals", params={"file": key}).json()["deals"]
    assert len(deals) == 6 and deals[1]["meta"]["table"] == 1
    records = list(read_records(record_dir / key))
    for index in (0, 3):
        deal = client.get("/api/records/deal", params={"file": key, "index": index}).json()
        assert deal["twin"] == index ^ 1
        frames = deal["frames"]
        assert len(frames) == len(records[index]["actions"]) + 1
        assert all(h is not None for f in frames for h in f["hands"])  # every hand shown
        assert frames[-1]["result"]["scores"] == records[index]["result"]["scores"]
        assert frames[0]["event"] is None and frames[1]["event"]["action"] == records[index]["actions"][0]["action"]


def test_record_requests_never_leave_the_given_folders(client, record_dir):
    for bad in ("../../etc/passwd", "/etc/passwd", str(record_dir / "coinche" / "random__heuristic.jsonl"),
                "coinche/../broken.jsonl", "", "x" * 5000):
        r = client.get("/api/records/deals", params={"file": bad})
        assert r.status_code == 400 and "no record file" in r.json()["error"], (bad, r.text)
    r = client.get("/api/records/deals", params={"file": "broken.jsonl"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    key = "coinche/random__heuristic.jsonl"
    for index in ("6", "-1", "1.0", "x", "9" * 30, ""):
        r = client.get("/api/records/deal", params={"file": key, "index": index})
        assert r.status_code == 400, (index, r.text)
    assert client.get("/api/records/deal", params={"file": key}).status_code == 400
    with TestClient(create_app()) as bare:
        assert bare.get("/api/records").json() == {"files": []}
        assert bare.get("/api/records/deals", params={"file": key}).status_code == 404


def test_a_record_that_does_not_replay_is_refused_naming_it(tmp_path):
    rec = deal_record(play_random_deal(load_variant("coinche"), random.Random(1)))
    rec["actions"][3]["action"] = "generale AT" if rec["actions"][3]["action"] != "generale AT" else "pass"
    rec["actions"][2]["action"] = "JH"
    (tmp_path / "bad.jsonl").write_text(record_line(rec))  # write_records would refuse it
    lib = RecordLibrary([tmp_path])
    with pytest.raises(ValueError, match="deal 0 of 'bad.jsonl' does not replay: action 3"):
        lib.deal("bad.jsonl", 0)
    assert twin_index([rec], 0) is None


def test_table_errors_leave_nothing_half_done():
    t = Table("belote_classique", build_agents([None, "heuristic", "heuristic", "heuristic"], {"heuristic"}),
              [None, "heuristic", "heuristic", "heuristic"], seed=2)
    frames = t.open()
    assert frames[-1]["to_act"] == 0 and frames[-1]["turnup"]
    with pytest.raises(TableError):
        Table("coinche", [None, None, None, None], [None] * 4, seed=0)
    with pytest.raises(TableError, match="unknown agent"):
        build_agents(["module:thing"], {"random"})


def test_serve_refuses_another_address_without_the_flag(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        serve_main(["--host", "0.0.0.0"])
    assert e.value.code == 2 and "--allow-remote" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        serve_main(["--records", str(tmp_path / "missing")])
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        serve_main(["--port", "70000"])
    with pytest.raises(SystemExit):
        serve_main(["--agent", "no_such_agent"])
    assert "no_such_agent" in capsys.readouterr().err


def random_json(rng, depth=0):
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return rng.randrange(-3, 200)
    if kind == 1:
        return rng.choice([None, True, False, 1.5, -0.0, 1e308, 2**64])
    if kind == 2:
        return rng.choice(["", "JH", "pass", "80 S", "coinche", "x" * rng.randrange(300), "\u00e9\u2665", "../..",
                           "heuristic", "random", "watch", "play", "game", "deal", "poker", "0"])
    if kind in (3, 4, 5):
        return rng.choice(["play", "watch", "coinche", "belote_classique", "random", "heuristic"])
    if kind in (6, 7):
        keys = ["mode", "variant", "seat", "partner", "opponents", "seats", "seed", "episode", "action", "n", "zz"]
        return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [random_json(rng, depth + 1) for _ in range(rng.randrange(5))]


def test_fuzz_ten_thousand_requests_no_server_error_and_illegal_moves_change_nothing(record_dir):
    """Random and malformed requests against every endpoint: never a 5xx, every error one line, and a refused
    move never changes its table. (httpx2's ASGI transport in one event loop: ten times faster than the test
    client's thread portal, 0.2 ms a request.)"""
    asyncio.run(fuzz(record_dir))


async def fuzz(record_dir):
    rng = random.Random(2026)
    app = create_app([record_dir], store=TableStore(max_tables=8, per_session=8))
    keys = ["nope", "", "%00", "../x", "a" * 300]
    files = ["coinche/random__heuristic.jsonl", "broken.jsonl", "../../etc/passwd", "", "%2e%2e/x"]
    statuses = {}
    unchanged = 0
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        for i in range(10_000):
            r = None
            roll = rng.random()
            key = rng.choice(keys)
            if roll < 0.12:  # a table, often a valid one
                body = {"mode": rng.choice(["play", "watch"]), "partner": "random", "opponents": "random",
                        "seed": rng.randrange(100)} if rng.random() < 0.6 else random_json(rng)
                if isinstance(body, dict) and body.get("mode") == "watch":
                    body = {"mode": "watch", "seats": ["random"] * 4, "seed": body.get("seed")}
                r = await c.post("/api/tables", json=body)
                if r.status_code == 200:
                    keys.append(r.json()["table"])
                    del keys[5:-6]
            elif roll < 0.45:  # a move: a legal one, an illegal one, or garbage
                before = await c.get(f"/api/tables/{key}")
                frame = before.json()["frames"][0] if before.status_code == 200 else None
                if frame is not None and frame["legal"] and rng.random() < 0.5:
                    action = rng.choice(frame["legal"])["id"]
                else:
                    action = random_json(rng) if rng.random() < 0.7 else rng.randrange(112)
                body = {"action": action} if rng.random() < 0.9 else random_json(rng)
                r = await c.post(f"/api/tables/{key}/act", json=body)
                if 400 <= r.status_code < 500 and frame is not None:
                    assert (await c.get(f"/api/tables/{key}")).json()["frames"][0] == frame, (body, r.text)
                    unchanged += 1
            elif roll < 0.55:
                n = {"n": random_json(rng)} if rng.random() < 0.7 else None
                r = await c.post(f"/api/tables/{key}/step", json=n)
            elif roll < 0.62:
                r = await c.post(f"/api/tables/{key}/next", content=rng.choice([b"", b"{}", b"[", b"\xff", b"null"]))
            elif roll < 0.67:
                r = await c.request(rng.choice(["GET", "DELETE", "PUT", "PATCH"]), f"/api/tables/{key}")
            elif roll < 0.72:
                r = await c.get(f"/api/tables/{key}/records")
            elif roll < 0.82:
                params = {"file": rng.choice(files)} if rng.random() < 0.8 else {}
                if rng.random() < 0.8:
                    params["index"] = rng.choice(["0", "5", "6", "-1", "x", "", "1e3", str(rng.randrange(10))])
                r = await c.get(rng.choice(["/api/records/deals", "/api/records/deal"]), params=params)
            elif roll < 0.9:
                raw = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
                r = await c.post(rng.choice(["/api/tables", f"/api/tables/{key}/act", f"/api/tables/{key}/step"]),
                           content=raw, headers={"content-type": rng.choice(["application/json", "text/plain"])})
            else:
                path = rng.choice(["/", "/api", "/api/options", "/api/records", "/static/app.js", "/static/x",
                                   "/static/../../etc/passwd", "/api/tables/" + "x" * 2000, "/%ff", "/api/records/"])
                r = await c.request(rng.choice(["GET", "POST", "HEAD", "OPTIONS"]), path)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            assert r.status_code < 500, (i, r.request.method, r.request.url, r.text[:300])
            if r.status_code >= 400 and r.content and r.headers.get("content-type", "").startswith("application/json"):
                err = r.json()["error"]
                assert "\n" not in err and "Traceback" not in err
    assert sum(statuses.values()) == 10_000 and statuses.get(200, 0) > 1000 and unchanged > 300, (statuses, unchanged)


def test_hostile_record_files_get_a_short_400_and_good_files_still_replay(tmp_path):
    """Every hostile file of the rules core's record tests, served: listing, deals and a deal are each a 400 with
    one short line (never a 500, never the file's content echoed), and a good file beside them replays."""
    from tests.belote_env.rules.test_record import _good_record, _hostile_lines

    for k, (case, line) in enumerate(_hostile_lines()):
        (tmp_path / f"h{k:02d}.jsonl").write_bytes(line.encode() if isinstance(line, str) else line)
    write_records(tmp_path / "good.jsonl", [_good_record()])
    with TestClient(create_app([tmp_path])) as c:
        files = [f["file"] for f in c.get("/api/records").json()["files"]]
        assert len(files) == len(_hostile_lines()) + 1
        for key in files:
            deals = c.get("/api/records/deals", params={"file": key})
            deal = c.get("/api/records/deal", params={"file": key, "index": "0"})
            if key == "good.jsonl":
                assert deals.status_code == deal.status_code == 200
                continue
            assert deal.status_code == 400, (key, deal.text[:200])
            assert deals.status_code in (200, 400), (key, deals.text[:200])
            for r in (deals, deal):
                if r.status_code == 400:
                    assert len(r.content) < 500 and "\n" not in r.json()["error"], (key, r.text[:300])


def test_an_internal_error_is_one_500_line_and_the_connection_stays(record_dir, monkeypatch):
    """A bug behind an endpoint: a 500 with one line answered by the endpoint itself (the test client re-raises
    what reaches the server, which would close a real connection), and the next request is served."""
    def boom(self, key):
        raise RuntimeError("a bug " + "x" * 10_000)

    monkeypatch.setattr(RecordLibrary, "summaries", boom)
    with TestClient(create_app([record_dir])) as c:  # raise_server_exceptions: an exception out of the app fails
        r = c.get("/api/records/deals", params={"file": "coinche/random__heuristic.jsonl"})
        assert r.status_code == 500 and r.json() == {
            "error": "internal error (RuntimeError); the server's log has the details"}
        assert c.get("/api/options").status_code == 200


def test_a_step_request_stops_after_its_time_budget(monkeypatch):
    """n=512 moves of slow agents: the request returns once MAX_STEP_SECONDS have gone (after at least one move),
    and the next request goes on from there."""
    import time

    from agents.arena.web import tables
    from agents.random_agent import RandomAgent

    class Slow(RandomAgent):
        def act(self, observation, action_mask, info):
            time.sleep(0.02)
            return super().act(observation, action_mask, info)

    monkeypatch.setattr(tables, "MAX_STEP_SECONDS", 0.1)
    table = Table("coinche", [Slow(s) for s in range(4)], ["slow"] * 4, seed=3)
    first = table.step(512)
    assert 1 <= len(first) < 20 and not first[-1]["paused"]
    second = table.step(512)
    assert 1 <= len(second) < 20


def test_long_bad_values_give_short_error_lines(client):
    big = "x" * 1_000_000
    table = new_table(client)["table"]
    for r in (client.post(f"/api/tables/{table}/act", json={"action": big[:30]}),
              client.post("/api/tables", json={"mode": "watch", "seats": [big[:15_000], "random", "random", "random"]}),
              client.get("/api/records/deals", params={"file": big[:10_000]})):
        assert 400 <= r.status_code < 500 and len(r.content) < 500, r.text[:200]


def test_any_json_body_is_served_or_refused_in_one_line_and_a_refusal_changes_nothing(record_dir):
    """Property test (hypothesis) of the table endpoints: any JSON body to ``POST /api/tables``, ``/act`` and
    ``/step`` gets a 200 or a 4xx with one short line; a refused move leaves its table's frame as it was."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    leaves = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                       st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12), st.sampled_from(["play", "watch", "coinche", "random", "pass", "JH",
                                                              "deal", "game", "heuristic", "100 H"]))
    values = st.recursive(leaves, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids,
                                                                                            max_size=3), max_leaves=6)
    keys = st.sampled_from(["mode", "variant", "seat", "partner", "opponents", "seed", "episode", "seats", "action",
                            "n", "x"])
    bodies = st.one_of(st.dictionaries(keys, values, max_size=5), values)

    with TestClient(create_app([record_dir], store=TableStore(max_tables=500, per_session=500))) as c:
        table = new_table(c, seed=1)["table"]
        watched = c.post("/api/tables", json={"mode": "watch", "seats": ["random"] * 4, "seed": 2}).json()["table"]

        @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(body=bodies, where=st.sampled_from(["new", "act", "step"]))
        def check(body, where):
            key = table if where == "act" else watched
            before = c.get(f"/api/tables/{key}").json()["frames"][0]
            url = "/api/tables" if where == "new" else f"/api/tables/{key}/{where}"
            r = c.post(url, json=body)
            assert r.status_code == 200 or 400 <= r.status_code < 500, (body, r.text[:200])
            if r.status_code != 200:
                err = r.json()["error"]
                assert "\n" not in err and len(err) <= 300
                if where == "act":
                    assert c.get(f"/api/tables/{key}").json()["frames"][0] == before
            elif where == "act" and r.json()["frames"][-1]["paused"]:
                c.post(f"/api/tables/{key}/next")

        check()


def test_a_client_that_goes_away_mid_request_is_not_logged_as_an_error(record_dir, caplog):
    """The body never comes (the browser tab closed): the server logs no traceback ("error serving ...")."""
    app = create_app([record_dir])
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/tables", "raw_path": b"/api/tables", "query_string": b"", "root_path": "",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    sent = []

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    async def run():
        async with app.router.lifespan_context(app):
            await app(scope, receive, send)

    with caplog.at_level("DEBUG"):
        asyncio.run(run())
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")], caplog.text
