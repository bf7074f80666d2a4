"""Configuration strings, the environment, keys, times and channel selections (docs/client-failover.md,
docs/api.md, docs/cli.md)."""

from __future__ import annotations

import datetime as dt

import pytest

from outpost import Channels, Config, ErrorKind, InvalidArgument, OutpostError, key_time, run_lumi, split_run_lumi
from outpost.cli.output import shortest
from outpost.cli.times import parse_time
from outpost.query import MAX_KEY, Window, aligned_window, time_key


def test_a_frontier_style_string() -> None:
    c = Config.parse("frontier://(serverurl=a:8000/prefix/)(serverurl=https://b)(proxyurl=p:3128)(retries=2)"
                     "(connecttimeoutsecs=1.5)(readtimeout=3)(cachewindow=60)(cachealign=4)(unknown=x(y))"
                     "(loadbalance=proxies)(clientid=job/1.0)(backoff=0)/db")
    assert c.servers == ["http://a:8000/prefix", "https://b:443"] and c.proxies == ["http://p:3128"]
    assert (c.retries, c.connect_timeout, c.read_timeout, c.backoff) == (2, 1.5, 3.0, 0.0)
    assert c.time_window == Window(60 * 10**9, 4) and c.run_lumi_window.divisions == 4
    assert (c.load_balance, c.client_id) == ("proxies", "job/1.0")
    assert Config.parse(c.to_string()).servers == c.servers


def test_a_plain_list_of_servers_and_backup_proxies() -> None:
    assert Config.parse("a:1; b:2,c:3 d:4").servers == ["http://a:1", "http://b:2", "http://c:3", "http://d:4"]
    c = Config.parse("(serverurl=a)(backupproxyurl=p)")
    assert c.backup_proxies == ["http://p:80"] and not c.failover_to_server


@pytest.mark.parametrize("spec", ["(retries=11)", "(retries=x)", "(connecttimeout=0)", "(serverurl=ftp://a)",
                                  "(cachealign=0)", "(failovertoserver=maybe)", "(serverurl=a", "(serverurl)",
                                  "(loadbalance=random)", "(clientid=a b)"])
def test_impossible_values_are_refused(spec: str) -> None:
    with pytest.raises(OutpostError) as e:
        Config.parse(spec)
    assert e.value.kind == ErrorKind.CONFIG


def test_no_route_is_refused() -> None:
    with pytest.raises(OutpostError):
        Config().validate()
    with pytest.raises(OutpostError):
        Config.parse("(serverurl=a)(failovertoserver=no)").validate()


def test_the_environment_outpost_variables_first() -> None:
    env = {"OUTPOST_SERVER": "http://a:1", "OUTPOST_SERVER2": "b:2", "OUTPOST_PROXY": "p:1 q:2",
           "OUTPOST_RETRIES": "3", "FRONTIER_SERVER": "http://ignored", "FRONTIER_READTIMEOUTSECS": "99"}
    c = Config.from_environment(env)
    assert c.servers == ["http://a:1", "http://b:2"] and c.proxies == ["http://p:1", "http://q:2"]
    assert c.retries == 3 and c.read_timeout == 10.0


def test_the_environment_frontier_variables() -> None:
    env = {"FRONTIER_SERVER": "(serverurl=http://a:1)(retries=0)", "FRONTIER_SERVER3": "http://c:3",
           "FRONTIER_PROXY": "http://p:1", "FRONTIER_PROXY2": "http://q:2", "FRONTIER_CONNECTTIMEOUTSECS": "2",
           "FRONTIER_READTIMEOUTSECS": "7"}
    c = Config.from_environment(env)
    assert c.servers == ["http://a:1", "http://c:3"] and c.proxies == ["http://p:1", "http://q:2"]
    assert (c.retries, c.connect_timeout, c.read_timeout) == (0, 2.0, 7.0)


def test_keys_run_lumi_and_time_helpers() -> None:
    assert run_lumi(358031, 12) == (358031 << 32) | 12 and split_run_lumi(run_lumi(7, 9)) == (7, 9)
    with pytest.raises(InvalidArgument):
        run_lumi(2**31)
    t = dt.datetime(2026, 1, 1, 5, tzinfo=dt.timezone.utc)
    assert time_key(t) == 1767243600000000000 and key_time(time_key(t)) == t
    assert parse_time("2026-01-01T07:00+02:00") == time_key(t)
    assert parse_time("2026-01-01T05:00:00.25Z") == time_key(t) + 250_000_000
    assert parse_time("358031:12") == run_lumi(358031, 12) and parse_time("max") == MAX_KEY
    for bad in ("yesterday", "2026-02-30", "1969-12-31", "2262-04-12", "2026-01-01t10:00", "9223372036854775808"):
        with pytest.raises(ValueError):
            parse_time(bad)


def test_channel_selections_are_canonical() -> None:
    assert Channels.parse("7,1-4").canonical() == "1-4,7"
    assert Channels.parse("1-3,4").canonical() == "1-4"
    assert Channels.parse("5-5").canonical() == "5"
    assert Channels.named("a b/é").canonical() == "name:a%20b%2F%C3%A9"
    assert Channels.parse("name:a%20b").name == "a b"
    # a channel name is passed on exactly as written: 'ch0 ' is not ch0
    assert Channels.parse("name:ch0 ").canonical() == "name:ch0%20"
    for bad in ("5-2", "x", "1-2-3", "", "-1"):
        with pytest.raises(InvalidArgument):
            Channels.parse(bad)


def test_aligned_windows() -> None:
    ten_minutes = Window(600 * 10**9)
    assert aligned_window(1767245400500000000, ten_minutes) == (1767245400000000000, 1767245999999999999)
    assert aligned_window(1767245400500000000, Window(600 * 10**9, 2))[0] == 1767245400000000000
    assert aligned_window(MAX_KEY, Window(1 << 32))[1] == MAX_KEY


@pytest.mark.parametrize("value,single,text", [(1002.0, False, "1002"), (0.25, False, "0.25"),
                                               (1e20, False, "1e+20"), (1.5e-7, False, "1.5e-07"),
                                               (106.12, True, "106.12"), (-0.0, True, "-0"),
                                               (-2.25e-300, False, "-2.25e-300"), (float("nan"), True, "NaN"),
                                               (float("-inf"), False, "-Infinity"), (123456.0, False, "123456")])
def test_numbers_print_as_the_shortest_text(value: float, single: bool, text: str) -> None:
    assert shortest(value, single) == text


def test_unknown_keys_are_ignored_with_one_warning_each() -> None:
    c = Config.parse("(serverurl=a)(colour=red)(colour=blue)(Shape=x)(forcereload=short)")
    assert c.servers == ["http://a:80"]
    assert c.warnings == ["unknown configuration key 'colour' ignored", "unknown configuration key 'shape' ignored"]
    assert c.force_reload == "short"  # a key of the contract, not an unknown one


def test_proxy_auto_config_urls_from_the_string_and_the_environment() -> None:
    c = Config.parse("(serverurl=a)(proxyconfigurl=file:///etc/site.pac)(proxyconfigurl=AUTO)"
                     "(proxyconfigurl=file:///etc/site.pac)")
    assert c.proxy_configs == ["file:///etc/site.pac", "auto"]
    assert Config.parse(c.to_string()).proxy_configs == c.proxy_configs
    env = Config.from_environment({"FRONTIER_SERVER": "a", "FRONTIER_PROXYCONFIGS": "http://wpad/x.pac;auto"})
    assert env.proxy_configs == ["http://wpad/x.pac", "auto"]
    with pytest.raises(OutpostError) as e:
        Config.parse("(serverurl=a)(proxyconfigurl=ftp://x/p.pac)")
    assert e.value.kind == ErrorKind.CONFIG and "ftp://x/p.pac" in e.value.message


def test_the_bounds_of_an_attempt_and_acceptsig1() -> None:
    default = Config.parse("(serverurl=http://a:8000)")
    assert (default.max_answer_bytes, default.attempt_timeout, default.accept_sig1) == (256 << 20, 30.0, False)
    c = Config.parse("(serverurl=http://a:8000)(maxanswerbytes=1048576)(attempttimeoutsecs=2.5)(acceptsig1=yes)")
    assert (c.max_answer_bytes, c.attempt_timeout, c.accept_sig1) == (1 << 20, 2.5, True)
    again = Config.parse(c.to_string())
    assert (again.max_answer_bytes, again.attempt_timeout, again.accept_sig1) == (1 << 20, 2.5, True)
    assert Config.parse("(serverurl=http://a:8000)(attempttimeout=7)").attempt_timeout == 7.0
    for spec, says in (("(maxanswerbytes=0)", "expected 1"), ("(maxanswerbytes=lots)", "whole number"),
                       ("(attempttimeout=0)", "expected seconds > 0"), ("(acceptsig1=maybe)", "expected yes or no")):
        with pytest.raises(OutpostError) as e:
            Config.parse("(serverurl=http://a:8000)" + spec)
        assert e.value.kind == ErrorKind.CONFIG and says in e.value.message, spec
