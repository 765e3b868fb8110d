"""Local duplicate tournaments between strategies of any game of :data:`games.GAMES`: one driver, one loop.

Every duplicate *set* is played once per *seating*: the strategies are assigned to the seats in every
rotation of the patterns ``(s[o], s[o+1], ...)`` (all offsets ``o``), so that each strategy sits in each seat
equally often with the same cards and the luck of the deal cancels. A set is either

- one seeded deal or round (the game's ``unit``), each seating in a fresh game (a fresh score sheet: no
  barrel, bolts or race to 1000) dealt from the seeded deck, a seat scoring the unit's points (0 for
  Thousand's redeal, which nobody scores); a strategy's result in the set is the mean over the seats it held
  that played the unit (not Thousand's four-player sitter, T-6); or
- one seeded whole game (``whole_games``): every game of the set dealt the same decks unit by unit (the k-th
  deck follows from the seed, the set's number and k alone) from the same first dealer, so the luck cancels as
  far as the games stay alike; a strategy's result is the mean over its seats of the game won (1 or 0), its
  final score and its points per unit. A game not over after ``max_units`` scored units is cut (counted, won
  by nobody), and each strategy's decision times are kept (p50, p99, max) to compare with the budget.

Results are means over sets with 95% intervals (normal approximation over sets) and, for every pair of
strategies, the paired difference with its own interval (tighter than the two intervals side by side). What
differs between games comes from their descriptions (:class:`games.description.Duplicate`): the deck, the
seeds, the unit, the scores, and whether rounds may stall (1000 Blagogo's round is abandoned after
:data:`STALL_ACTIONS` actions in a one-round set, scored 0 and counted; in a whole game a round still going
after :data:`LOOP_ACTIONS` is an error). The command line and the report: :mod:`games.tournament_cli`.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, TypeVar

from bots.strategy import StrategyOptions
from games import GameDescription, game_named

Progress = Callable[[int, int], None]
T = TypeVar("T")

STALL_ACTIONS: Final = 5000
"""In a one-round set, a round not over after this many actions is abandoned (scored 0): a dead round."""
LOOP_ACTIONS: Final = 20_000
"""In a whole game, actions in one round beyond which the round is taken to loop (a failure, not a result)."""


def seatings(strategies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Distinct assignments of strategies to seats, each strategy in each seat equally often."""
    k = len(strategies)
    out: list[tuple[str, ...]] = []
    for offset in range(k):
        pattern = [strategies[(i + offset) % k] for i in range(players)]
        for r in range(players):
            seating = tuple(pattern[(s + r) % players] for s in range(players))
            if seating not in out:
                out.append(seating)
    return out


def seeded_order(cards: Sequence[T], key: int) -> tuple[tuple[T, ...], int]:
    """A duplicate deck: ``cards`` shuffled by a generator seeded with ``key`` (the game's own derivation of
    the tournament seed and the set's number), and a salt for its dealer."""
    order = list(cards)
    rng = random.Random(key)
    rng.shuffle(order)
    return tuple(order), rng.randrange(1 << 30)


def unit_deck(game: GameDescription, seed: int, number: int) -> tuple[Any, int]:
    """The seeded deck (the game's chance outcome) of one-unit set ``number``, and a salt for its dealer."""
    parts = game.duplicate
    order, salt = seeded_order(parts.cards, parts.derive_seed(seed, f"tournament:{number}"))
    return parts.stacked(order), salt


def game_deck(game: GameDescription, seed: int, number: int, unit: int) -> Any:
    """The deck of the ``unit``-th deal or round dealt in every game of whole-game set ``number``."""
    parts = game.duplicate
    order, _ = seeded_order(parts.cards, parts.derive_seed(seed, f"{parts.games_label}:{number}:{unit}"))
    return parts.stacked(order)


@dataclass(frozen=True, slots=True)
class Setup:
    """A tournament's settings; the game by its name, so that the setup goes to worker processes."""

    game: str
    strategies: tuple[str, ...]
    seed: int
    rules: Any
    options: StrategyOptions
    max_units: int | None = None
    """None: one deal or round a set; else whole games, cut after this many scored deals or rounds."""

    @property
    def players(self) -> int:
        players: int = self.rules.players
        return players


@dataclass(slots=True)
class Played:
    """One game of a set: the game, and what the loop saw of it."""

    game: Any
    deltas: tuple[int, ...]
    """Each seat's points of the unit (one-unit sets; zeros for a redeal or a stalled round)."""
    playing: Sequence[int]
    """The seats that played the unit (one-unit sets)."""
    cut: bool = False
    stalled: bool = False
    actions: int = 0
    winner: int | None = None
    """Who went out in the unit (a game that says so: 1000 Blagogo), for the report."""
    times: dict[str, list[float]] = field(default_factory=dict)


def play(setup: Setup, number: int, seating: tuple[str, ...]) -> Played:
    """Set ``number`` played once with ``seating``: each seat sees only its own view (and the Turn's
    actions), decides as at a table (:attr:`GameDescription.choose`) and observes its view after every
    change; an illegal choice is an error."""
    game = game_named(setup.game)
    parts = game.duplicate
    players = setup.players
    whole = setup.max_units is not None
    if whole:
        key = parts.derive_seed(setup.seed, f"{parts.games_label}:{number}:dealer")
        dealer = random.Random(key).randrange(players)
        deck = None
    else:
        deck, salt = unit_deck(game, setup.seed, number)
        dealer = salt % players
    state = game.new_game(setup.rules, setup.seed, dealer, None)
    seats = [game.strategies.make(name, setup.options) for name in seating]
    rngs = [random.Random(f"{setup.seed}:{number}:{seat}:{name}") for seat, name in enumerate(seating)]
    budget = setup.options.budget_ms / 1000.0 if whole and setup.options.budget_ms > 0 else None
    played = Played(state, (0,) * players, range(players))
    actions = 0
    while not state.is_over:
        if state.is_chance_node:
            if not whole:
                if parts.dealt(state):
                    break  # the unit is over (a redeal: nobody scores)
                state.apply_chance(deck)
                played.playing = parts.playing(state)
            elif parts.played(state) >= (setup.max_units or 0):
                played.cut = True
                break
            else:
                state.apply_chance(game_deck(game, setup.seed, number, parts.dealt(state) + 1))
            actions = 0
        else:
            if not whole and actions >= STALL_ACTIONS:
                played.stalled = True
                break
            actor = state.to_act
            assert actor is not None
            begun = time.monotonic()
            due = None if budget is None else begun + budget
            turn = game.turn_actions(state, actor)
            action = game.choose(seats[actor], game.view(state, actor), turn, rngs[actor], due)
            played.times.setdefault(seating[actor], []).append(time.monotonic() - begun)
            if not state.is_legal(actor, action):
                raise RuntimeError(f"{seating[actor]} chose an illegal action {action!r}")
            events = state.apply(actor, action)
            actions += 1
            played.actions += 1
            if whole and actions > LOOP_ACTIONS:
                raise RuntimeError(
                    f"set {number}, {parts.unit} {parts.dealt(state)}: {actions} actions, still going"
                )
            if not whole:
                for event in events:
                    scored = game.scored(event)
                    if scored is not None:
                        played.deltas = scored.deltas
                        winner = scored.details.get("winner")
                        played.winner = winner if isinstance(winner, int) else None
        for s, strategy in enumerate(seats):
            strategy.observe(game.view(state, s))
    return played


@dataclass(slots=True)
class SetResult:
    """One set: each measure of each strategy (mean over its seats and the seatings), and what was counted."""

    measures: dict[str, dict[str, float]]
    cut: int = 0
    units: int = 0
    """Whole games: the deals or rounds scored. One unit a set: the units played to their end."""
    stalled: int = 0
    actions: int = 0
    went_out: dict[str, int] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict, compare=False)
    """Each strategy's decision times, seconds (not part of a set's outcome: a rerun differs)."""


def measures(game: GameDescription) -> tuple[str, ...]:
    """What a whole-game set records of each strategy: games won, final score, points per deal or round."""
    return ("won", "score", f"per_{game.duplicate.unit}")


def play_set(setup: Setup, number: int) -> SetResult:
    """Set ``number`` in every seating; each strategy's measures, means over the seats it held."""
    game = game_named(setup.game)
    names = setup.strategies
    kinds = measures(game) if setup.max_units is not None else ("score",)
    totals = {m: dict.fromkeys(names, 0.0) for m in kinds}
    counts = dict.fromkeys(names, 0)
    result = SetResult({})
    for seating in seatings(names, setup.players):
        played = play(setup, number, seating)
        for name, times in played.times.items():
            result.times.setdefault(name, []).extend(times)
        result.actions += played.actions
        if setup.max_units is None:
            _count_unit(result, played, seating)
            for seat in played.playing:
                totals["score"][seating[seat]] += played.deltas[seat]
                counts[seating[seat]] += 1
            continue
        state, parts = played.game, game.duplicate
        result.cut += played.cut
        result.units += parts.played(state)
        for seat, name in enumerate(seating):
            score = parts.score(state, seat)
            totals["won"][name] += 1.0 if state.winner == seat else 0.0
            totals["score"][name] += score
            totals[kinds[2]][name] += score / max(parts.played(state), 1)
            counts[name] += 1
    result.measures = {m: {n: totals[m][n] / counts[n] for n in names} for m in kinds}
    return result


def _count_unit(result: SetResult, played: Played, seating: tuple[str, ...]) -> None:
    if played.stalled:
        result.stalled += 1
        return
    result.units += 1
    if played.winner is not None:
        name = seating[played.winner]
        result.went_out[name] = result.went_out.get(name, 0) + 1


@dataclass(frozen=True, slots=True)
class Stat:
    mean: float
    ci95: float
    n: int


def stat(values: Sequence[float]) -> Stat:
    n = len(values)
    if not n:
        return Stat(0.0, 0.0, 0)
    mean = sum(values) / n
    if n < 2:
        return Stat(mean, math.inf, n)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return Stat(mean, 1.96 * math.sqrt(var / n), n)


@dataclass(slots=True)
class TournamentResult:
    """A tournament's sets and what they add up to."""

    game: str
    strategies: tuple[str, ...]
    players: int
    whole_games: bool
    sets: list[SetResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def description(self) -> GameDescription:
        return game_named(self.game)

    def score(self, measure: str, name: str | None = None) -> Stat:
        """``score(name)``: the points per unit of a one-unit tournament; else ``score(measure, name)``."""
        if name is None:
            measure, name = "score", measure
        return stat([s.measures[measure][name] for s in self.sets])

    def difference(self, measure: str, a: str, b: str | None = None) -> Stat:
        """``difference(a, b)``: paired difference of points per unit; or ``difference(measure, a, b)``."""
        if b is None:
            measure, a, b = "score", measure, a
        return stat([s.measures[measure][a] - s.measures[measure][b] for s in self.sets])

    def total(self, what: str) -> int:
        """``cut``, ``units``, ``stalled`` or ``actions`` over every set."""
        return sum(int(getattr(s, what)) for s in self.sets)

    def went_out(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.sets:
            for name, k in s.went_out.items():
                out[name] = out.get(name, 0) + k
        return out

    def timing(self, name: str) -> dict[str, float]:
        """p50, p99 and max decision time of ``name``, milliseconds."""
        times = sorted(t for s in self.sets for t in s.times.get(name, []))
        if not times:
            return {"p50": 0.0, "p99": 0.0, "max": 0.0}

        def at(q: float) -> float:
            return round(1000 * times[min(len(times) - 1, int(q * len(times)))], 1)

        return {"p50": at(0.5), "p99": at(0.99), "max": round(1000 * times[-1], 1)}


def stderr_progress(done: int, total: int) -> None:
    """A plain-text progress bar on stderr (the tournament calls it with 0 first, then after every set)."""
    now = time.monotonic()
    if done == 0:
        _PROGRESS_START[0] = now
    elapsed = now - _PROGRESS_START[0]
    width = 30
    filled = width * done // max(total, 1)
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals  {elapsed:6.0f}s  eta {eta:5.0f}s"
    )
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


_PROGRESS_START = [0.0]


def tournament_rules(game: GameDescription, players: int, **given: Any) -> Any:
    """The game's default rules for ``players`` under the tournament's own (``Duplicate.tournament_rules``)
    and the rules ``given`` (None: not given); ValueError for a rule the game does not have."""
    rules = game.default_rules(players)
    chosen = {**game.duplicate.tournament_rules, **{k: v for k, v in given.items() if v is not None}}
    unknown = sorted(set(chosen) - {f.name for f in fields(rules)})
    if unknown:
        raise ValueError(f"{game.title} has no rule {', '.join(unknown)}")
    return replace(rules, **chosen)


def tournament(
    game: str | GameDescription,
    strategies: Sequence[str],
    sets: int,
    seed: int,
    *,
    players: int | None = None,
    rules: Any = None,
    options: StrategyOptions | None = None,
    max_units: int | None = None,
    whole_games: bool = False,
    progress: Progress | None = stderr_progress,
    workers: int = 1,
) -> TournamentResult:
    """Play ``sets`` duplicate sets between ``strategies`` (names in the game's registry) and score them:
    one deal or round a set, or whole games (``whole_games``, cut after ``max_units``: the game's own limit
    unless given). ``rules``: the game's default rules under the tournament's own unless given."""
    description = game if isinstance(game, GameDescription) else game_named(game)
    known = description.strategies.factories
    for name in strategies:
        if name not in known:
            raise KeyError(f"no {description.title} strategy {name!r} (known: {', '.join(sorted(known))})")
    if len(set(strategies)) != len(strategies):
        raise ValueError("each strategy may be named once")
    if rules is None:
        default = 3 if whole_games else description.duplicate.unit_players
        rules = tournament_rules(description, default if players is None else players)
    elif players is not None and rules.players != players:
        raise ValueError(f"rules for {rules.players} players, not {players}")
    limit = (max_units or description.duplicate.max_units) if whole_games else None
    setup = Setup(description.name, tuple(strategies), seed, rules, options or StrategyOptions(), limit)
    result = TournamentResult(description.name, tuple(strategies), setup.players, whole_games)
    start = time.monotonic()
    if progress is not None:
        progress(0, sets)
    done: dict[int, SetResult] = {}
    for number, outcome in _sets(setup, sets, workers):
        done[number] = outcome
        if progress is not None:
            progress(len(done), sets)
    result.sets = [done[n] for n in sorted(done)]
    result.seconds = time.monotonic() - start
    return result


def _run_chunk(args: tuple[Setup, list[int]]) -> list[tuple[int, SetResult]]:
    setup, numbers = args
    return [(n, play_set(setup, n)) for n in numbers]


def _sets(setup: Setup, sets: int, workers: int) -> Iterator[tuple[int, SetResult]]:
    if workers <= 1:
        for number in range(sets):
            yield number, play_set(setup, number)
        return
    size = 1 if setup.max_units is not None else 2
    chunks = [list(range(i, min(i + size, sets))) for i in range(0, sets, size)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_run_chunk, [(setup, c) for c in chunks]):
            yield from part
