"""Reference values for the live rating (arena/src/ratings/tests.rs,
`the_update_matches_openskill`): OpenSkill's Bradley-Terry full-pairing model
with the arena's constants. Produced once with

    python3 -m venv /tmp/os && /tmp/os/bin/pip install openskill==6.2.0
    /tmp/os/bin/python arena/src/ratings/openskill_reference.py

and pasted as constants into the test.
"""
from openskill.models import BradleyTerryFull
m = BradleyTerryFull(mu=25.0, sigma=25/3, beta=25/6, kappa=1e-6, tau=25/300)
cases = [
  ("two new bots, the first wins", [(25.0, 25/3), (25.0, 25/3)], [1, 2]),
  ("four bots of unequal ratings, a tie for second", [(30.0, 4.0), (22.0, 6.5), (25.0, 25/3), (18.0, 2.0)], [1, 2, 2, 4]),
  ("three bots tie", [(27.0, 3.0), (25.0, 25/3), (20.0, 5.0)], [1, 1, 1]),
  ("an upset: the weakest of three wins", [(35.0, 2.5), (28.0, 3.5), (15.0, 4.0)], [3, 2, 1]),
]
for name, players, ranks in cases:
    teams = [[m.rating(mu=mu, sigma=s)] for mu, s in players]
    out = m.rate(teams, ranks=ranks)
    print(name, [(repr(t[0].mu), repr(t[0].sigma)) for t in out])
