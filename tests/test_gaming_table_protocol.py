"""GT frames (drivers.gaming_table_protocol): blocks assembled, every reply parsed, every malformed frame refused
naming its fault; and the simulator's rounds (drivers.sim.gaming_table) decoded back to what was played."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.games import roulette
from bench.profiles.gaming_table import GamingTableEquipment, GamingTableSetup, GamingTableSimulator
from drivers.gaming_table_protocol import (
    BlockReader,
    Frame,
    TableRound,
    decode,
    encode,
    encode_block,
    encode_pairs,
    parse_configuration,
    parse_pairs,
    parse_round,
    parse_status,
)
from drivers.line_frame import corrupt_checksum
from drivers.serial_link import FrameError, StaleReply
from drivers.sim.gaming_table import TableModel


def frame(*parts: object) -> Frame:
    return decode(encode(*parts))


def assemble(header_type: str, lines: list[bytes], key: str | None = None) -> tuple[Frame, list[Frame]]:
    reader = BlockReader(header_type, key)
    result = None
    for line in lines:
        result = reader.feed(decode(line))
    assert result is not None
    return result


ROUND = encode_block("RND", [7, "roleta-francesa", "17", "-"], [
    ["cavalo", "n=17.20", 500, "W", 8500, 0, "-"],
    ["preto", encode_pairs({"n": ".".join(str(n) for n in sorted(roulette.simple("preto").numbers))}), 1000, "L", 0,
     1000, "-"],
])


def test_framing_faults_are_named() -> None:
    good = encode("STATUS", 12)
    assert parse_status(decode(good)) == 12
    with pytest.raises(FrameError, match="checksum"):
        decode(corrupt_checksum(good))
    with pytest.raises(FrameError, match="missing '\\$'"):
        decode(good[1:])
    with pytest.raises(FrameError, match="not an GT frame"):
        decode(good[:-2])
    with pytest.raises(FrameError, match="last round '-1' must be a whole number"):
        parse_status(frame("STATUS", -1))


def test_a_round_block_is_assembled_and_parsed() -> None:
    assert ROUND[0] == encode("RND", 7, "roleta-francesa", "17", "-", 2)
    assert ROUND[-1] == encode("END", "RND", 7, 2)
    played = parse_round(*assemble("RND", ROUND, "7"))
    assert (played.round, played.game, played.outcome, dict(played.context)) == (7, "roleta-francesa", "17", {})
    cavalo, preto = played.bets
    assert (cavalo.index, cavalo.chance, dict(cavalo.spec), cavalo.stake) == (1, "cavalo", {"n": "17.20"}, 500)
    assert (cavalo.decision, cavalo.prize, cavalo.lost, cavalo.next) == ("win", 8500, 0, None)
    assert (preto.decision, preto.lost) == ("lose", 1000)
    assert TableRound.from_json(played.to_json()) == played  # the journal's copy is the same round
    assert played.to_json()["frames"][0] == ROUND[0].decode().rstrip()


def test_a_block_with_a_lost_frame_is_refused_until_a_repeat_fills_the_gap() -> None:
    reader = BlockReader("RND", "7")
    for line in [ROUND[0], *ROUND[2:-1]]:
        assert reader.feed(decode(line)) is None
    with pytest.raises(FrameError, match="RND 7: 1 of 2 items not received intact \\(first: 1\\); asked again, "
                                         "the 1 received are kept"):
        reader.feed(decode(ROUND[-1]))
    assert reader.held == 2  # the header and item 2 are kept for the repeat
    for line in [ROUND[0], ROUND[1]]:  # the repeat's header and item 1 arrive; its item 2 is garbled on the line
        assert reader.feed(decode(line)) is None
    result = reader.feed(decode(ROUND[-1]))
    assert result is not None and [item.raw for item in result[1]] == ROUND[1:-1]


def test_copies_of_a_block_that_disagree_are_never_mixed() -> None:
    other_item = encode("BET", 7, 1, "cavalo", "n=17.20", 500, "L", 0, 500, "-")
    with pytest.raises(FrameError, match="BET frame 1 disagrees with the block's earlier copy of it"):
        assemble("RND", [ROUND[0], ROUND[1], other_item], "7")
    with pytest.raises(FrameError, match="BET frame 3 disagrees with the block's header \\(2 items\\)"):
        assemble("RND", [ROUND[0], encode("BET", 7, 3, "cavalo", "n=17.20", 500, "L", 0, 500, "-")], "7")
    with pytest.raises(FrameError, match="does not close"):
        assemble("RND", [*ROUND[:-1], encode("END", "RND", 7, 3)], "7")
    reader = BlockReader("RND", "7")  # a header with other fields starts the block again: item 1 is not kept
    for line in [ROUND[0], ROUND[1], encode("RND", 7, "roleta-francesa", "18", "-", 2), ROUND[2]]:
        reader.feed(decode(line))
    assert (reader.held, reader.restarts) == (2, 1)
    with pytest.raises(FrameError, match="1 of 2 items not received intact"):
        reader.feed(decode(ROUND[-1]))


def test_bet_fields_are_checked() -> None:
    header = frame("RND", 7, "craps", "3.4", "point=off", 1)

    def bet(*fields: object) -> Frame:
        return frame("BET", 7, 1, *fields)

    for bad, fault in [((("field", "-", 100, "X", 0, 100, "-")), "decision 'X'"),
                       ((("field", "-", 0, "L", 0, 0, "-")), "stake 0 must be at least 1"),
                       ((("field", "-", 100, "L", 0, 200, "-")), "lost 200 is more than the stake 100"),
                       ((("", "-", 100, "L", 0, 100, "-")), "chance is empty"),
                       ((("field", "n", 100, "L", 0, 100, "-")), "key=value pairs"),
                       ((("field", "-", "1.5", "L", 0, 100, "-")), "stake '1.5' must be a whole number"),
                       ((("field", "-", 100, "L", 0)), "needs 9 fields")]:
        with pytest.raises(FrameError, match=fault):
            parse_round(header, [bet(*bad)])
    with pytest.raises(FrameError, match="BET of round 8 inside round 7"):
        parse_round(header, [frame("BET", 8, 1, "field", "-", 100, "L", 0, 100, "-")])
    standing = parse_round(header, [bet("pass-line", "-", 100, "N", 0, 0, 6)]).bets[0]
    assert (standing.decision, standing.next) == ("none", "6")


def test_configuration_block() -> None:
    lines = encode_block("CONF", ["craps", "p217-2007", "bar=12"], [["place-6", 100, 10000], ["other", 100, 10000]])
    configuration = parse_configuration(*assemble("CONF", lines))
    assert (configuration.game, configuration.rules, dict(configuration.options)) == ("craps", "p217-2007",
                                                                                      {"bar": "12"})
    assert configuration.limits["place-6"].maximum == 10000
    repeated = encode_block("CONF", ["craps", "p217-2007", "-"], [["place-6", 100, 1], ["place-6", 100, 2]])
    with pytest.raises(FrameError, match="repeats chance 'place-6'"):
        parse_configuration(*assemble("CONF", repeated))
    with pytest.raises(FrameError, match="minimum 0 must be at least 1"):
        parse_configuration(*assemble("CONF", encode_block("CONF", ["craps", "p217-2007", "-"],
                                                           [["place-6", 0, 1]])))


def test_pairs() -> None:
    assert encode_pairs({"seat": 3, "cards": "AS.KH"}) == "seat=3;cards=AS.KH"
    assert encode_pairs({}) == "-"
    assert dict(parse_pairs("seat=3;cards=AS.KH", frame("X"), "spec")) == {"seat": "3", "cards": "AS.KH"}
    with pytest.raises(ValueError, match="may not contain"):
        encode_pairs({"n": "1,2"})
    with pytest.raises(FrameError, match="key=value"):
        parse_pairs("seat=3;seat=4", frame("X"), "spec")


# -- the simulator's rounds, decoded -------------------------------------------------------------


def model(game: str, rules: str = "p217-2007", **simulator: object) -> TableModel:
    return TableModel(GamingTableSimulator(setup=GamingTableSetup(game=game, rules=rules), **simulator))


def rounds(table: TableModel, count: int) -> list[TableRound]:
    return [parse_round(*assemble("RND", table.round_frames(n), str(n))) for n in range(1, count + 1)]


def test_a_round_is_the_same_whenever_it_is_asked_for() -> None:
    table = model("blackjack")
    assert table.round_frames(5) == table.round_frames(5)
    assert table.round_frames(5) != table.round_frames(6)


def test_roulette_bets_cover_every_chance_within_the_limits_and_settle_by_the_oracle() -> None:
    table = model("roleta-americana", "srij-804-2015")
    played = rounds(table, 60)
    assert {bet.chance for r in played for bet in r.bets} == {kind.value for kind in roulette.Kind}
    limits = table.setup.limits()
    for r in played:
        number = roulette.parse_pocket(r.outcome)
        for bet in r.bets:
            low, high = limits[bet.chance]
            assert low <= bet.stake <= high and bet.stake % low == 0
            numbers = frozenset(roulette.parse_pocket(n) for n in bet.spec["n"].split("."))
            exact = roulette.settle(roulette.Bet(roulette.Chance(roulette.Kind(bet.chance), numbers), bet.stake),
                                    number, roulette.AMERICAN_ONLINE)
            assert (bet.decision, bet.lost) == (exact.decision, exact.lost)
            assert exact.prize - 1 < bet.prize <= exact.prize  # whole cents, the fraction kept by the bank


def test_a_fault_model_changes_only_its_rule() -> None:
    fair, faulty = rounds(model("roleta-francesa"), 120), rounds(model("roleta-francesa", model="split-pays-16"), 120)
    changed = [(a, b) for r, s in zip(fair, faulty, strict=True) for a, b in zip(r.bets, s.bets, strict=True)
               if a != b]
    assert changed and all(a.chance == "cavalo" and a.decision == "win" for a, _ in changed)
    assert all(Fraction(b.prize, b.stake) == 16 for _, b in changed)


def test_limit_too_high_reports_a_maximum_above_the_multiple() -> None:
    equipment = GamingTableEquipment(kind="gaming-table", identity={"manufacturer": "A", "model": "B", "serial": "1"},
                                     options={"game": "blackjack", "minimum": 500},
                                     simulator={"model": "limit-too-high"})
    assert equipment.simulator is not None
    table = TableModel(equipment.simulator)
    configuration = parse_configuration(*assemble("CONF", table.configuration_frames()))
    assert configuration.limits["aposta"].maximum == 31 * 500


def test_profile_refuses_what_the_rules_do_not_know() -> None:
    with pytest.raises(ValueError, match="no 'srij-804-2015' rules"):
        GamingTableSetup(game="roleta-francesa", rules="srij-804-2015")
    with pytest.raises(ValueError, match="does not limit"):
        GamingTableSetup(game="blackjack", maxima={"pleno": 100})
    with pytest.raises(ValueError, match="applies to craps"):
        GamingTableEquipment(kind="gaming-table", identity={"manufacturer": "A", "model": "B", "serial": "1"},
                             options={"game": "blackjack"}, simulator={"model": "field-12-pays-triple"})


def test_frames_of_another_rounds_block_are_skipped_and_counted() -> None:
    """A late reply's items or END (round 6) inside round 7's block are an earlier request's: skipped and counted
    (the driver discards them as stale), never a break of the block nor part of it."""
    other = encode_block("RND", [6, "roleta-francesa", "3", "-"], [["cavalo", "n=3.6", 500, "L", 0, 500, "-"]])
    reader = BlockReader("RND", "7")
    for line in [ROUND[0], other[1], ROUND[1], other[2], *ROUND[2:]]:
        if line in other:
            with pytest.raises(StaleReply, match="of another block than RND 7"):
                reader.feed(decode(line))
        else:
            result = reader.feed(decode(line))
    assert result is not None and parse_round(*result).round == 7 and len(result[1]) == 2
    assert reader.stale_frames == 2
