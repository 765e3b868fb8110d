"""Thousand as environments for learning frameworks, an optional extra (``pip install thousand[rl]``):

- :mod:`bots.envs.spiel`: an OpenSpiel Python game per game, registered by name (``python_thousand``),
  chance as explicit nodes (the deck dealt card by card), the variants as game parameters, information-state
  and observation tensors and strings;
- :mod:`bots.envs.aec`: a PettingZoo AEC environment (observation plus action mask);
- :mod:`bots.envs.single`: a Gymnasium single-seat environment against chosen bots of :mod:`bots.registry`
  (:mod:`bots.envs.single_blagogo` for 1000 Blagogo; both on :mod:`bots.envs.single_base`);
- :mod:`bots.envs.observers`: each game once for the PettingZoo and Gymnasium environments (episode, deal,
  action ids, observation, scores, how its bots choose);
- information-state tensors: :mod:`engine.recall` (Thousand: perfect recall within a deal) and
  :mod:`engine.blagogo.recall` (1000 Blagogo: the round's latest moves, not strictly perfect recall).

All of them encode with :mod:`engine.encoding` (the fixed action ids, the observation tensor and the legal
mask), and play :mod:`bots.envs.episode`'s episodes: one deal by default, or a number of deals, or whole
games to 1000 (``max_deals=0``).
"""
