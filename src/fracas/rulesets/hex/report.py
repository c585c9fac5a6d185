"""Reports of the ``hex`` ruleset: a turn, a forecast, the advisor's ranking.

Each strike is one table in the seed's row order, Effective Atk beside Effective Def,
every cell with its source, the last row the Effective values (the sums of the rows
above). The JSON ``data`` keeps the key order documented in ``docs/rules/hex.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from fracas._version import __version__
from fracas.core.modifiers import Breakdown, Modifier, Op
from fracas.core.report import (
    Block,
    Report,
    Section,
    Table,
    Text,
    fmt,
)
from fracas.core.report import json_number as number
from fracas.rulesets.hex.advisor import Advice
from fracas.rulesets.hex.play import Combat, Turn
from fracas.rulesets.hex.scenario import Board
from fracas.rulesets.hex.strike import ROW_ATTACK, ROW_DEFENSE, ROW_ORDER, StrikeOutcome

if TYPE_CHECKING:
    # Only named in annotations: the report of a plain advise or resolve does not load
    # the planner and the replies.
    from fracas.rulesets.hex.plan import Plan, PlannedAttack
    from fracas.rulesets.hex.reply import Focus, Reply, Threat

RULESET = "hex"


def breakdown_data(breakdown: Breakdown) -> dict[str, Any]:
    """JSON form of a breakdown: label, total, then the rows (label, op, value, source, rule)."""
    return {
        "label": breakdown.label,
        "total": number(breakdown.total),
        "rows": [
            {
                "label": row.label,
                "op": row.op.name.lower(),
                "value": number(row.value),
                "source": row.source,
                "rule": row.rule,
            }
            for row in breakdown.rows
        ],
    }


def _cell(row: Modifier | None) -> str:
    if row is None:
        return ""
    if row.op is Op.BASE:
        return fmt(row.value, 4)
    return f"{row.op.value}{fmt(row.value, 4)}"


def _row_for(breakdown: Breakdown, label: str) -> Modifier | None:
    wanted = (ROW_ATTACK, ROW_DEFENSE) if label == f"{ROW_ATTACK}/{ROW_DEFENSE}" else (label,)
    return next((row for row in breakdown.rows if row.label in wanted), None)


def strike_table(outcome: StrikeOutcome, title: str) -> Table:
    """Effective Atk beside Effective Def, one row per modifier in the seed's order."""
    rows: list[tuple[str, ...]] = []
    for label in ROW_ORDER:
        atk = _row_for(outcome.effective_attack, label)
        dfn = _row_for(outcome.effective_defense, label)
        if atk is None and dfn is None:
            continue
        rows.append(
            (label, _cell(atk), atk.source if atk else "", _cell(dfn), dfn.source if dfn else "")
        )
    rows.append(
        (
            "Effective value",
            fmt(outcome.effective_attack.total),
            "",
            fmt(outcome.effective_defense.total),
            "",
        )
    )
    columns = (
        "",
        f"Atk {outcome.striker}",
        "source",
        f"Def {outcome.target}",
        "source",
    )
    return Table(columns, tuple(rows), title=title, total_rows=1)


def _ratio_text(outcome: StrikeOutcome) -> str:
    k = fmt(outcome.inputs.loss_exponent)
    if outcome.ratio is None:
        ratio = "no defence left: the target loses everything"
    elif outcome.effective_attack.total == 0:
        ratio = "ratio 0: no attack, no losses"
    else:
        ratio = (
            f"ratio {fmt(outcome.ratio, 3)} → fraction r^{k}/(1+r^{k}) = {fmt(outcome.fraction, 3)}"
        )
    strength = outcome.target_strength
    return (
        f"{ratio}; {outcome.target} loses floor({fmt(outcome.fraction, 3)} × {strength} + 0.5) = "
        f"{outcome.losses} of {strength}"
    )


def combat_blocks(combat: Combat) -> tuple[Block, ...]:
    """The tables and lines of one combat, for any report."""
    blocks: list[Block] = [
        strike_table(combat.strike, f"{combat.attacker} strikes {combat.target}"),
        Text(_ratio_text(combat.strike)),
    ]
    if combat.counter is not None:
        blocks.append(strike_table(combat.counter, f"{combat.target} counters {combat.attacker}"))
        blocks.append(Text(_ratio_text(combat.counter)))
    else:
        blocks.append(Text(combat.counter_note))
    lines = [
        f"losses applied together: {combat.attacker} −{combat.losses[combat.attacker]}, "
        f"{combat.target} −{combat.losses[combat.target]}"
    ]
    for change in combat.levels:
        if change.unit in combat.destroyed:
            continue
        lines.append(f"{change.unit}: Lv {change.before} → {change.after} ({change.reason})")
    for unit_id in combat.destroyed:
        lines.append(f"{unit_id} is destroyed and leaves the board")
    blocks.append(Text("\n".join(lines), strong=bool(combat.destroyed)))
    return tuple(blocks)


def board_table(start: Board, end: Board, title: str = "", *, changed_only: bool = False) -> Table:
    """One row per unit of ``start``: where it is, and its strength and level after
    (``changed_only``: only the units whose strength or level the turns changed)."""
    rows = []
    for unit in start.units:
        after = end.unit(unit.id) if end.has_unit(unit.id) else None
        if (
            changed_only
            and after is not None
            and (after.strength, after.level) == (unit.strength, unit.level)
        ):
            continue
        strength = f"{unit.strength} → {after.strength if after else 0}"
        if after is not None and after.strength == unit.strength:
            strength = str(unit.strength)
        level = (
            str(unit.level)
            if after is None or after.level == unit.level
            else (f"{unit.level} → {after.level}")
        )
        statuses = ", ".join(f"{s.name} ({s.kind})" for s in unit.statuses) or ""
        rows.append(
            (
                unit.id,
                unit.side,
                str(unit.hex),
                unit.domain,
                strength,
                level,
                "destroyed" if after is None else statuses,
            )
        )
    columns = ("unit", "side", "hex", "domain", "strength", "Lv", "notes")
    return Table(columns, tuple(rows), title=title)


def strike_data(outcome: StrikeOutcome) -> dict[str, Any]:
    """JSON form of one strike (key order documented in docs/rules/hex.md)."""
    return {
        "striker": outcome.striker,
        "target": outcome.target,
        "distance": outcome.inputs.distance,
        "effective_attack": breakdown_data(outcome.effective_attack),
        "effective_defense": breakdown_data(outcome.effective_defense),
        "ratio": None if outcome.ratio is None else number(outcome.ratio),
        "fraction": number(outcome.fraction),
        "target_strength": outcome.target_strength,
        "losses": outcome.losses,
    }


def combat_data(combat: Combat) -> dict[str, Any]:
    """JSON form of one combat."""
    return {
        "attacker": combat.attacker,
        "target": combat.target,
        "distance": combat.distance,
        "strike": strike_data(combat.strike),
        "counter": None if combat.counter is None else strike_data(combat.counter),
        "counter_note": combat.counter_note,
        "losses": dict(combat.losses),
        "levels": [
            {"unit": c.unit, "before": c.before, "after": c.after, "reason": c.reason}
            for c in combat.levels
        ],
        "destroyed": list(combat.destroyed),
    }


def board_data(start: Board, end: Board) -> list[dict[str, Any]]:
    """JSON form of the units: each with its strength and level before and after."""
    units = []
    for unit in start.units:
        after = end.unit(unit.id) if end.has_unit(unit.id) else None
        units.append(
            {
                "id": unit.id,
                "side": unit.side,
                "hex": [unit.hex.q, unit.hex.r],
                "domain": unit.domain,
                "strength_before": unit.strength,
                "strength": after.strength if after else 0,
                "max_strength": unit.max_strength,
                "level_before": unit.level,
                "level": after.level if after else unit.level,
                "destroyed": after is None,
            }
        )
    return units


def turn_report(turn: Turn, title: str, description: str = "") -> Report:
    """The report of a resolved turn: every combat, then the final board."""
    sections: list[Section] = []
    if description:
        sections.append(Section("Scenario", (Text(description),)))
    for position, combat in enumerate(turn.combats, start=1):
        heading = (
            f"{position}. {combat.attacker} attacks {combat.target} (distance {combat.distance})"
        )
        sections.append(Section(heading, combat_blocks(combat)))
    if not turn.combats:
        sections.append(Section("Orders", (Text("no orders: the board stands as it is"),)))
    sections.append(Section("Board after the turn", (board_table(turn.start, turn.end),)))
    data = {
        "kind": "turn",
        "combats": [combat_data(c) for c in turn.combats],
        "units": board_data(turn.start, turn.end),
    }
    return Report(RULESET, title, tuple(sections), data, version=__version__)


def forecast_report(combat: Combat, title: str) -> Report:
    """A preview of one attack; the board is not changed."""
    heading = f"Forecast: {combat.attacker} attacks {combat.target} (distance {combat.distance})"
    sections = (
        Section(heading, combat_blocks(combat)),
        Section("Board if committed", (board_table(combat.before, combat.after),)),
    )
    data = {"kind": "forecast", "combat": combat_data(combat)}
    return Report(RULESET, title, sections, data, version=__version__)


def _score(value: Fraction) -> str:
    return fmt(value)


def advice_report(
    side: str,
    ranked: Sequence[Advice],
    title: str,
    score_rule: str,
    detail: int = 10,
    *,
    top: int | None = None,
) -> Report:
    """The advisor's ranking, best first; the first ``detail`` with their full forecast.

    The text shows the best ``top`` (``None``: all) and how many there are in all: on a
    board of thousands the full list is thousands of lines. The data keeps every attack.
    """
    shown = ranked if top is None else ranked[: max(top, 0)]
    detail = min(detail, len(shown))
    rows = tuple(
        (
            str(rank),
            a.attacker,
            a.target,
            str(a.enemy_lost),
            str(a.own_lost),
            str(a.levels_gained),
            _score(a.score),
        )
        for rank, a in enumerate(shown, start=1)
    )
    columns = ("#", "attacker", "target", "enemy lost", "own lost", "Lv gained", "score")
    summary: list[Block] = [Text(score_rule)]
    if rows:
        summary.append(Table(columns, rows, title=f"Attacks of {side}, best first"))
        if len(shown) < len(ranked):
            summary.append(
                Text(f"The best {len(shown):,} of {len(ranked):,} legal attacks are shown.")
            )
        else:
            summary.append(Text(f"{len(ranked):,} legal attacks in all."))
    elif ranked:
        summary.append(Text(f"None of the {len(ranked):,} legal attacks is shown (top 0)."))
    else:
        summary.append(Text(f"{side} has no legal attack"))
    if len(shown) > detail:
        summary.append(
            Text(f"The {detail} best are shown in full below (parameter advisor_detail).")
        )
    sections = [Section(f"Advice for {side}", tuple(summary))]
    combats = [advice.forecast for advice in ranked[:detail]]
    for rank, (advice, combat) in enumerate(zip(ranked, combats, strict=False), start=1):
        heading = (
            f"#{rank} {advice.attacker} attacks {advice.target} (score {_score(advice.score)})"
        )
        sections.append(Section(heading, combat_blocks(combat)))
    data = {
        "kind": "advice",
        "side": side,
        "total": len(ranked),
        "attacks": [
            {
                "rank": rank,
                "attacker": a.attacker,
                "target": a.target,
                "score": number(a.score),
                "enemy_lost": a.enemy_lost,
                "own_lost": a.own_lost,
                "levels_gained": a.levels_gained,
                "combat": combat_data(combats[rank - 1]) if rank <= detail else None,
            }
            for rank, a in enumerate(ranked, start=1)
        ],
    }
    return Report(RULESET, title, tuple(sections), data, version=__version__)


def plan_report(plan: Plan, title: str, value_rule: str) -> Report:
    """A proposed turn: the attacks in order, the value, the search, the board after."""
    end = plan.end()
    running = Fraction(0)
    rows = []
    for order, attack in enumerate(plan.attacks, start=1):
        running += attack.value
        rows.append(
            (
                str(order),
                attack.attacker,
                attack.target,
                str(attack.enemy_lost),
                str(attack.own_lost),
                _score(attack.value),
                _score(running),
            )
        )
    summary: list[Block] = [
        Text(value_rule),
        Text(f"Search: {plan.method}."),
        Text(
            f"Value of the plan: {_score(plan.value)}. Following the single-attack ranking "
            f"of advise (its attacks that score above 0, in order) gives "
            f"{_score(plan.ranking_value)}."
        ),
    ]
    if rows:
        columns = ("#", "attacker", "target", "enemy lost", "own lost", "value", "total")
        summary.append(Table(columns, tuple(rows), title=f"Attacks of {plan.side}, in order"))
    else:
        summary.append(Text(f"no attack is worth making for {plan.side}"))
    sections = (
        Section(f"Plan for {plan.side}", tuple(summary)),
        Section("Board after the plan", (board_table(plan.board, end),)),
    )
    data = {
        "kind": "plan",
        "side": plan.side,
        "value_rule": value_rule,
        "method": plan.method,
        "exact": plan.exact,
        "width": plan.width,
        "plans_evaluated": plan.plans_evaluated,
        "value": number(plan.value),
        "ranking_value": number(plan.ranking_value),
        "attacks": [
            {
                "order": order,
                "attacker": a.attacker,
                "target": a.target,
                "enemy_lost": a.enemy_lost,
                "own_lost": a.own_lost,
                "value": number(a.value),
            }
            for order, a in enumerate(plan.attacks, start=1)
        ],
        "units": board_data(plan.board, end),
    }
    return Report(RULESET, title, sections, data, version=__version__)


def threats_report(side: str, found: Sequence[Threat], units: Sequence[str], title: str) -> Report:
    """What the other sides can do to ``side`` now: every attack, worst first, and each
    unit of ``side`` with the worst single attack on it."""
    rows = tuple(
        (
            str(rank),
            t.target,
            t.attacker,
            t.side,
            str(t.distance),
            f"{t.target_lost} of {t.target_strength}",
            str(t.attacker_lost),
            "destroyed" if t.destroys else "",
        )
        for rank, t in enumerate(found, start=1)
    )
    worst: dict[str, Threat] = {}
    count: dict[str, int] = {}
    for threat in found:
        worst.setdefault(threat.target, threat)
        count[threat.target] = count.get(threat.target, 0) + 1
    blocks: list[Block] = [
        Text(
            "Each attack as the other side would fight it now, on the board as it is; "
            "worst first (most of our soldiers lost, then fewest of theirs)."
        )
    ]
    if rows:
        columns = ("#", "ours", "attacked by", "side", "distance", "we lose", "they lose", "")
        blocks.append(Table(columns, rows, title=f"Attacks on {side}, worst first"))
    else:
        blocks.append(Text(f"no unit of another side can attack {side} now"))
    per_unit = tuple(
        (
            unit,
            str(count.get(unit, 0)),
            f"{worst[unit].target_lost} (by {worst[unit].attacker})" if unit in worst else "—",
        )
        for unit in units
    )
    blocks.append(
        Table(("unit", "attacks on it", "worst single attack"), per_unit, title=f"Units of {side}")
    )
    data = {
        "kind": "threats",
        "side": side,
        "threats": [
            {
                "rank": rank,
                "target": t.target,
                "attacker": t.attacker,
                "side": t.side,
                "distance": t.distance,
                "target_lost": t.target_lost,
                "attacker_lost": t.attacker_lost,
                "target_strength": t.target_strength,
                "destroys": t.destroys,
            }
            for rank, t in enumerate(found, start=1)
        ],
        "units": [
            {
                "id": unit,
                "attacks": count.get(unit, 0),
                "worst": worst[unit].target_lost if unit in worst else 0,
            }
            for unit in units
        ],
    }
    sections = (Section(f"Threats to {side}", tuple(blocks)),)
    return Report(RULESET, title, sections, data, version=__version__)


def _orders(attacks: Sequence[PlannedAttack], shown: int | None = None) -> str:
    """``a → b (taken/−lost), …``; past ``shown`` attacks, how many more there are: a
    side's whole turn on a big board is hundreds of attacks, too many for a table cell."""
    listed = attacks if shown is None else attacks[:shown]
    text = ", ".join(f"{a.attacker} → {a.target} ({a.enemy_lost}/−{a.own_lost})" for a in listed)
    more = len(attacks) - len(listed)
    if more:
        text += f"{', ' if text else ''}and {more:,} more"
    return text


def _attacks_data(attacks: Sequence[PlannedAttack]) -> list[dict[str, Any]]:
    return [
        {
            "attacker": a.attacker,
            "target": a.target,
            "enemy_lost": a.enemy_lost,
            "own_lost": a.own_lost,
            "value": number(a.value),
        }
        for a in attacks
    ]


def reply_report(
    side: str,
    found: Sequence[Reply],
    title: str,
    value_rule: str,
    *,
    plan: bool,
    total: int,
    shown: int | None = None,
) -> Report:
    """Our attacks (or plan), the enemy's best reply to each, ranked by the net value;
    the table lists ``shown`` attacks of each turn (``None``: all), the JSON all."""
    what = "our planned turn" if plan else f"each of our best {len(found):,} attacks"
    blocks: list[Block] = [
        Text(value_rule),
        Text(
            f"For {what}: the board it leaves, the other side's best turn on that board by "
            "the same planner, and net = our value − theirs; best net first."
        ),
    ]
    if not plan and total > len(found):
        blocks.append(Text(f"The best {len(found):,} of {total:,} legal attacks are answered."))
    rows = tuple(
        (
            str(rank),
            _orders(r.ours, shown) or "no attack",
            _score(r.our_value),
            _orders(r.theirs, shown) or "no attack",
            _score(r.their_value),
            _score(r.net),
        )
        for rank, r in enumerate(found, start=1)
    )
    if rows:
        columns = ("#", "ours (taken/−lost)", "value", "their reply", "value", "net")
        blocks.append(Table(columns, rows, title=f"{side}: attacks and replies, best net first"))
    elif total:
        blocks.append(Text(f"None of the {total:,} legal attacks is answered (top 0)."))
    else:
        blocks.append(Text(f"{side} has no legal attack"))
    if shown is not None and any(len(r.theirs) > shown or len(r.ours) > shown for r in found):
        blocks.append(
            Text(
                f"Each turn lists its first {shown:,} attacks (parameter reply_attacks_shown); "
                "the JSON keeps every attack."
            )
        )
    if plan and found:
        blocks.append(Text(f"Our turn: {found[0].our_method}."))
    # Each reply's search, named; replies found the same way are listed together.
    ways: dict[str, list[int]] = {}
    for rank, r in enumerate(found, start=1):
        ways.setdefault(r.their_method.split(":")[0], []).append(rank)
    if ways:
        told = "; ".join(f"{way} for {_ranks(ranks)}" for way, ranks in ways.items())
        blocks.append(Text(f"Their replies: {told}."))
    sections = [Section(f"Replies to {side}", tuple(blocks))]
    if found:
        best = found[0]
        # The units the two turns changed: the rest stand as on the board given (on a big
        # board a thousand rows, most of the text); the JSON lists every unit.
        changed = board_table(best.board, best.end(), changed_only=True)
        unchanged = len(best.board.units) - len(changed.rows)
        blocks_after: list[Block] = [changed]
        if unchanged:
            blocks_after.append(
                Text(
                    f"{unchanged:,} other unit"
                    + (" stands" if unchanged == 1 else "s stand")
                    + " as before."
                )
            )
        sections.append(Section("Units changed by the best and its reply", tuple(blocks_after)))
    data = {
        "kind": "reply",
        "side": side,
        "plan": plan,
        "value_rule": value_rule,
        "total": total,
        "replies": [
            {
                "rank": rank,
                "attacks": _attacks_data(r.ours),
                "value": number(r.our_value),
                "proven": r.our_exact,
                "method": r.our_method,
                "enemy": r.enemy,
                "reply": _attacks_data(r.theirs),
                "reply_value": number(r.their_value),
                "reply_proven": r.their_exact,
                "reply_method": r.their_method,
                "net": number(r.net),
                "units": board_data(r.board, r.end()),
            }
            for rank, r in enumerate(found, start=1)
        ],
    }
    return Report(RULESET, title, tuple(sections), data, version=__version__)


def _ranks(ranks: Sequence[int]) -> str:
    """``#1–#3, #5``: ranks in order, runs of three or more joined."""
    runs: list[list[int]] = []
    for rank in ranks:
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    parts = []
    for run in runs:
        if len(run) >= 3:
            parts.append(f"#{run[0]}–#{run[-1]}")
        else:
            parts += [f"#{rank}" for rank in run]
    return ", ".join(parts)


def focus_report(found: Focus, title: str) -> Report:
    """The best order of attackers against one target, and the board after each attack."""
    rows = []
    for order, step in enumerate(found.steps, start=1):
        rows.append(
            (
                str(order),
                step.attack.attacker,
                str(step.attack.enemy_lost),
                str(step.attack.own_lost),
                str(step.target_left),
                str(step.attacker_left),
            )
        )
    outcome = (
        f"destroys {found.target}"
        if found.destroyed
        else f"takes {found.taken} of {found.target}'s {found.strength}"
    )
    blocks: list[Block] = [
        Text(
            f"Attackers of {found.side} that can reach {found.target}: "
            f"{', '.join(found.attackers)}. Best order, proven by exact search over every "
            f"order and subset ({_count_plans(found.evaluated)}): most soldiers taken from "
            "the target, then fewest of ours lost."
        ),
        Text(f"The order {outcome} for {found.own_lost} of ours."),
    ]
    if rows:
        columns = ("#", "attacker", "taken", "lost", f"{found.target} left", "attacker left")
        blocks.append(Table(columns, tuple(rows), title=f"Attacks on {found.target}, in order"))
    else:
        blocks.append(Text(f"no attack on {found.target} is worth making"))
    sections = (
        Section(f"Focus on {found.target}", tuple(blocks)),
        Section("Board after the order", (board_table(found.board, found.end()),)),
    )
    data = {
        "kind": "focus",
        "side": found.side,
        "target": found.target,
        "attackers": list(found.attackers),
        "destroyed": found.destroyed,
        "taken": found.taken,
        "own_lost": found.own_lost,
        "plans_evaluated": found.evaluated,
        "attacks": [
            {
                "order": order,
                "attacker": step.attack.attacker,
                "enemy_lost": step.attack.enemy_lost,
                "own_lost": step.attack.own_lost,
                "target_left": step.target_left,
                "attacker_left": step.attacker_left,
                "changed": [
                    {"id": unit, "strength": strength, "level": level}
                    for unit, strength, level in step.changed
                ],
            }
            for order, step in enumerate(found.steps, start=1)
        ],
        "units": board_data(found.board, found.end()),
    }
    return Report(RULESET, title, sections, data, version=__version__)


def _count_plans(number: int) -> str:
    return f"{number:,} plan{'' if number == 1 else 's'} evaluated"
