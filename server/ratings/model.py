"""The rating model, pure: OpenSkill's Plackett-Luce with its default parameters, pools, ranks and updates.

Plackett-Luce rates a game of any number of players ranked in full (2 to 8 here), where Elo and Glicko-2 are
two-player models. Everything a client needs to check an update travels in the RatingsUpdated event (the
model's name, the package version and every parameter, each seat's rating before and its rank), and this
module computes an update exactly as docs/protocol.md "Ratings" tells a client to: so the server's numbers
are the ones any client gets from the same package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, Final

from openskill.models import PlackettLuce

from thousand.v1 import ratings_pb2 as ratings_pb

MODEL_NAME: Final = "openskill.PlackettLuce"
MU: Final = 25.0
SIGMA: Final = MU / 3
BETA: Final = SIGMA / 2
KAPPA: Final = 0.0001
TAU: Final = MU / 300
BOT_PREFIX: Final = "bot:"
"""A bot's player id in a bots' pool is its strategy's name after this prefix."""


@dataclass(frozen=True, slots=True)
class RatingValue:
    """One player's rating in one pool: mean, uncertainty and rated games played."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: what leaderboards rank by (a new player's is 0)."""
        return self.mu - 3 * self.sigma

    def to_proto(self) -> ratings_pb.Rating:
        return ratings_pb.Rating(mu=self.mu, sigma=self.sigma, ordinal=self.ordinal, games=self.games)

    @staticmethod
    def from_proto(message: ratings_pb.Rating) -> RatingValue:
        return RatingValue(message.mu, message.sigma, message.games)


@dataclass(frozen=True, slots=True)
class Pool:
    """One rating pool: a game (its name, "thousand" or "blagogo"), a number of players, people or bots; or
    the bots' ladder (:mod:`server.ladder`: registered bots and reference bots, rated by sets)."""

    game: str
    players: int
    bots: bool = False
    ladder: bool = False

    @property
    def pool_id(self) -> str:
        suffix = "-ladder" if self.ladder else "-bots" if self.bots else ""
        return f"{self.game}-{self.players}{suffix}"

    @staticmethod
    def parse(pool_id: str) -> Pool:
        """The pool of an id :attr:`pool_id` made (ValueError for any other string)."""
        parts = pool_id.split("-")
        bots, ladder = parts[-1] == "bots", parts[-1] == "ladder"
        if bots or ladder:
            parts = parts[:-1]
        if len(parts) != 2 or not parts[1].isdigit():  # game and players
            raise ValueError(f"not a rating pool id: {pool_id!r}")
        return Pool(parts[0], int(parts[1]), bots, ladder)


def bot_id(strategy: str) -> str:
    return BOT_PREFIX + strategy


def new_model() -> PlackettLuce:
    """The model every update uses, with every parameter given, as RatingModel names them."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU, limit_sigma=False, balance=False)


def model_proto() -> ratings_pb.RatingModel:
    return ratings_pb.RatingModel(
        name=MODEL_NAME,
        version=version("openskill"),
        mu=MU,
        sigma=SIGMA,
        beta=BETA,
        kappa=KAPPA,
        tau=TAU,
        limit_sigma=False,
        balance=False,
    )


def ranks(standings: Sequence[Any], forfeited: Sequence[bool]) -> list[int]:
    """Each seat's rank (1 best), in seat order, from the final standings (``seat`` and ``place`` of each)
    and whether each seat forfeited on time: a seat that forfeited ranks below every seat that did not,
    the forfeited among themselves by place; equal places share a rank."""
    keys = {int(s.seat): (bool(forfeited[int(s.seat)]), int(s.place)) for s in standings}
    if sorted(keys) != list(range(len(forfeited))):
        raise ValueError(f"standings name seats {sorted(keys)}, the table has {len(forfeited)}")
    order = sorted(set(keys.values()))
    # A rank counts the seats ahead (1224 ranking): ties share the better rank, the next rank skips.
    ahead = {key: sum(1 for k in keys.values() if k < key) for key in order}
    return [ahead[keys[seat]] + 1 for seat in range(len(forfeited))]


def rate(before: Sequence[RatingValue], seat_ranks: Sequence[int]) -> list[RatingValue]:
    """Each seat's rating after a game, in seat order: ``model.rate`` of one-player teams, as a client
    recomputes it, and one more game played."""
    model = new_model()
    teams = [[model.create_rating([r.mu, r.sigma])] for r in before]
    after = model.rate(teams, ranks=[float(rank) for rank in seat_ranks])
    return [
        RatingValue(float(team[0].mu), float(team[0].sigma), r.games + 1)
        for team, r in zip(after, before, strict=True)
    ]
