"""The :class:`HexRuleset` class: metadata and hooks tying the hex pieces together."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from fracas.core.errors import IllegalActionError, ScenarioError
from fracas.core.headline import Headline, MetricLabels
from fracas.core.limits import spend
from fracas.core.process import Done, OneStep, Played
from fracas.core.record import Recorder
from fracas.core.report import Report
from fracas.rulesets.base import TOP, Ruleset, Summary, deferred
from fracas.rulesets.hex.odds import HEADLINES

if TYPE_CHECKING:  # the rules load when used: listing the rulesets needs none of them
    from fracas.rulesets.campaign import CampaignRules
    from fracas.rulesets.hex.document import HexDocument, HexParams
    from fracas.rulesets.hex.play import Turn
    from fracas.rulesets.hex.scenario import Board, HexScenario


class HexRuleset(Ruleset["HexDocument", "HexScenario", "Done[Turn]"]):
    """Deterministic hex-grid combat: forecast, resolve a turn, advise, draw."""

    name: ClassVar[str] = "hex"
    aliases: ClassVar[tuple[str, ...]] = ("hexgrid",)
    title: ClassVar[str] = "Hex-grid combat without dice"
    summary: ClassVar[str] = "deterministic hex combat: stack modifiers, then commit"
    deterministic: ClassVar[bool] = True
    headlines: ClassVar[tuple[Headline, ...]] = HEADLINES
    metric_labels: ClassVar[MetricLabels] = (
        ("losses.*", "{name}'s losses"),
        ("strength.*", "{name}'s strength after"),
        ("level.*", "{name}'s level after"),
        ("destroyed.*", "{name} destroyed"),
    )
    document_model = deferred("fracas.rulesets.hex.document", "HexDocument")
    params_model = deferred("fracas.rulesets.hex.document", "HexParams")

    @classmethod
    def result_schema(cls, command: str) -> dict[str, Any] | None:
        """The JSON Schema of a report's ``result`` (``fracas.rulesets.hex.output_schema``)."""
        from fracas.rulesets.hex.output_schema import RESULTS

        return RESULTS.get(command)

    def build(self, document: HexDocument) -> HexScenario:
        """Check the map, the units and every order (on the board as it evolves)."""
        from fracas.rulesets.hex.play import play_turn
        from fracas.rulesets.hex.scenario import HexScenario, build_board

        params = document.parameters
        board = build_board(document)
        orders: list[tuple[str, str]] = []
        known = ", ".join(unit.id for unit in board.units)
        for index, order in enumerate(document.orders):
            for key, unit_id in (("attacker", order.attacker), ("target", order.target)):
                if not board.has_unit(unit_id):
                    raise ScenarioError(
                        f"no unit with id {unit_id!r} (units: {known})",
                        path=("orders", index, key),
                    )
            orders.append((order.attacker, order.target))
        # Playing the turn here means an order made illegal by an earlier one (its unit was
        # destroyed) is reported before anything is printed.
        play_turn(board, orders, params)
        return HexScenario(board, tuple(orders), params, document.title, document.description)

    def process(self, scenario: HexScenario, recorder: Recorder) -> OneStep[Turn]:
        """The turn as one step: the orders resolved in order; no die is ever asked."""
        from fracas.rulesets.hex.play import play_turn

        return OneStep(lambda dice: play_turn(scenario.board, scenario.orders, scenario.params))

    def report(self, scenario: HexScenario, played: Played[Done[Turn]]) -> Report:
        """Every combat of the turn, strike by strike, then the board after it."""
        from fracas.rulesets.hex.report import turn_report

        title = scenario.title or "Hex combat"
        return turn_report(played.state.result, title, scenario.description)

    def campaign_rules(self) -> CampaignRules:
        from fracas.rulesets.hex.campaign import HexCampaign

        return HexCampaign()

    def metrics(self, scenario: HexScenario, state: Done[Turn]) -> Summary:
        """``losses.<id>``, ``strength.<id>``, ``level.<id>``, ``destroyed.<id>`` per unit."""
        result = state.result
        metrics: dict[str, int | float | str | bool] = {}
        for unit in result.start.units:
            after = result.end.unit(unit.id) if result.end.has_unit(unit.id) else None
            strength = after.strength if after else 0
            metrics[f"losses.{unit.id}"] = unit.strength - strength
            metrics[f"strength.{unit.id}"] = strength
            metrics[f"level.{unit.id}"] = after.level if after else unit.level
            metrics[f"destroyed.{unit.id}"] = after is None
        return metrics

    def _check_ids(self, board: Board, attacker: str, target: str) -> None:
        known = ", ".join(unit.id for unit in board.units)
        for option, unit_id in (("--attacker", attacker), ("--target", target)):
            if not board.has_unit(unit_id):
                raise ScenarioError(f"no unit with id {unit_id!r} (units: {known})", path=(option,))
        from fracas.rulesets.hex.play import illegal_reason

        reason = illegal_reason(board, attacker, target)
        if reason is not None:
            raise IllegalActionError(f"illegal attack: {reason}", path=("--target",))

    def forecast(self, scenario: HexScenario, attacker: str, target: str) -> Report:
        """The report of one attack on the scenario's board, which stays as it was."""
        from fracas.rulesets.hex.play import forecast
        from fracas.rulesets.hex.report import forecast_report

        self._check_ids(scenario.board, attacker, target)
        combat = forecast(scenario.board, attacker, target, scenario.params)
        return forecast_report(combat, scenario.title or "Hex combat")

    def _check_side(self, scenario: HexScenario, side: str, option: str = "--side") -> None:
        sides = scenario.board.sides()
        if side not in sides:
            raise ScenarioError(f"no side {side!r} (sides: {', '.join(sides)})", path=(option,))

    def advise(self, scenario: HexScenario, side: str, *, top: int | None = TOP) -> Report:
        """Every legal attack of ``side``, best first; the best ``top`` shown to people."""
        self._sided(scenario, side)
        params = scenario.params
        # Every attacker of the side is tried against every unit: a step of the budget each.
        attackers = sum(1 for unit in scenario.board.units if unit.side == side)
        spend(attackers * len(scenario.board.units))
        rule = (
            f"score = {params.advisor_enemy_weight:g} × enemy soldiers lost − "
            f"{params.advisor_own_weight:g} × own soldiers lost; ties: more levels gained first"
        )
        from fracas.rulesets.hex.advisor import advise
        from fracas.rulesets.hex.report import advice_report

        ranked = advise(scenario.board, side, params)
        title = scenario.title or "Hex combat"
        return advice_report(side, ranked, title, rule, params.advisor_detail, top=top)

    def plan(self, scenario: HexScenario, side: str, *, width: int | None = None) -> Report:
        """An order of attacks for the whole of ``side``: proven best by exact search where
        it fits the budget, else found by beam search (see ``hex.plan``)."""
        self._sided(scenario, side)
        if width is not None and width < 1:
            raise ScenarioError(f"the width must be at least 1, not {width}", path=("--width",))
        params = scenario.params
        rule = (
            f"value = Σ over the attacks of ({params.advisor_enemy_weight:g} × enemy soldiers "
            f"lost − {params.advisor_own_weight:g} × own soldiers lost), each attack on the "
            "board the earlier ones left; no chance is involved, so this is the value itself"
        )
        # The search evaluates at most `width` batches per attacker, each of at most every
        # attacker against every unit: that many steps of the advise budget.
        attackers = sum(1 for unit in scenario.board.units if unit.side == side)
        beam = params.planner_width if width is None else width
        spend(beam * attackers * len(scenario.board.units))
        from fracas.rulesets.hex.plan import plan_turn
        from fracas.rulesets.hex.report import plan_report

        found = plan_turn(scenario.board, side, params, width=width)
        return plan_report(found, scenario.title or "Hex combat", rule)

    def _sided(self, scenario: HexScenario, side: str, option: str = "--side") -> None:
        """Refuse a side that is not on the board, or has no unit left to fight with, named
        by the ``option`` that gave it."""
        self._check_side(scenario, side, option)
        if not any(unit.side == side and unit.alive for unit in scenario.board.units):
            raise ScenarioError(f"side {side!r} has no unit with soldiers", path=(option,))

    def _plan_rule(self, params: HexParams) -> str:
        return (
            f"value = Σ over the attacks of ({params.advisor_enemy_weight:g} × enemy soldiers "
            f"lost − {params.advisor_own_weight:g} × own soldiers lost), each attack on the "
            "board the earlier ones left; no chance is involved, so this is the value itself"
        )

    def threats(self, scenario: HexScenario, side: str) -> Report:
        """Every attack the other sides can make on ``side`` now, worst first."""
        self._sided(scenario, side)
        board = scenario.board
        enemies = sum(1 for unit in board.units if unit.side != side)
        spend(enemies * len(board.units))
        from fracas.rulesets.hex.reply import threats
        from fracas.rulesets.hex.report import threats_report

        found = threats(board, side, scenario.params)
        units = [unit.id for unit in board.units if unit.side == side]
        return threats_report(side, found, units, scenario.title or "Hex combat")

    def reply(
        self,
        scenario: HexScenario,
        side: str,
        *,
        plan: bool = False,
        width: int | None = None,
        top: int | None = TOP,
    ) -> Report:
        """The other sides' best reply to each of our ``top`` best attacks, or to our
        planned turn; ranked by our value minus theirs (see ``hex.reply``)."""
        self._sided(scenario, side)
        if width is not None and width < 1:
            raise ScenarioError(f"the width must be at least 1, not {width}", path=("--width",))
        params = scenario.params
        board = scenario.board
        # Every side's attacks are gathered once, each unit against each: a step a pair.
        # The searches are bounded by their own width and exact budget (``hex.plan``).
        units = len(board.units)
        spend(units * units)
        if width is not None:
            # A width asked for sizes every search as --plan's does: at most `width`
            # batches an attacker, each of every attacker against every unit. Ours once
            # (with --plan), the enemies' once for each of our attacks answered.
            ours = sum(1 for unit in board.units if unit.side == side)
            answered = 1 if plan else (top if top is not None else ours * units)
            spend(width * units * ((ours if plan else 0) + answered * (units - ours)))
        from fracas.rulesets.hex.boards import pair_rows
        from fracas.rulesets.hex.reply import replies
        from fracas.rulesets.hex.report import reply_report

        found = replies(board, side, params, plan=plan, top=top, width=width)
        return reply_report(
            side,
            found,
            scenario.title or "Hex combat",
            self._plan_rule(params),
            plan=plan,
            total=int(pair_rows(board, side)[0].size),
            shown=params.reply_attacks_shown,
        )

    def focus(self, scenario: HexScenario, side: str, target: str) -> Report:
        """The best order of the attackers of ``side`` against ``target``, proven."""
        self._sided(scenario, side)
        board = scenario.board
        if not board.has_unit(target):
            known = ", ".join(unit.id for unit in board.units)
            raise ScenarioError(f"no unit with id {target!r} (units: {known})", path=("--focus",))
        attackers = sum(1 for unit in board.units if unit.side == side)
        spend(attackers * len(board.units))
        from fracas.rulesets.hex.reply import focus
        from fracas.rulesets.hex.report import focus_report

        found = focus(board, side, target, scenario.params)
        return focus_report(found, scenario.title or "Hex combat")

    def picture(
        self,
        scenario: HexScenario,
        *,
        attacker: str | None = None,
        target: str | None = None,
        reply: bool = False,
        threats: str | None = None,
    ) -> str:
        """An SVG of the board; with an attacker and a target, their forecast drawn on it,
        and with ``reply`` the enemy's best reply to it as arrows in the enemy's colour;
        with ``threats`` the most one enemy attack would take from each unit of that side."""
        from fracas.rulesets.hex.svg import board_svg

        board, params = scenario.board, scenario.params
        answer: list[tuple[str, str, int]] = []
        if attacker is not None and target is not None:
            self._check_ids(board, attacker, target)
            if reply:
                from fracas.rulesets.hex.reply import replies

                side = board.unit(attacker).side
                (found,) = replies(board, side, params, orders=[(attacker, target)])
                answer = [(a.attacker, a.target, a.enemy_lost) for a in found.theirs]
        elif reply:
            raise ScenarioError("needs --attacker and --target", path=("--reply",))
        threatened: dict[str, int] = {}
        if threats is not None:
            self._sided(scenario, threats, "--threats")
            from fracas.rulesets.hex.reply import threats as threats_to

            for threat in threats_to(board, threats, params):
                threatened.setdefault(threat.target, threat.target_lost)
        return board_svg(
            board,
            attacker=attacker,
            target=target,
            params=params,
            reply=answer,
            threatened=threatened,
        )
