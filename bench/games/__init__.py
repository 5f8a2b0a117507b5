"""Game rules of the regulations as executable oracles.

Each module settles the bets of one game exactly as its regulation states (money in
integers or fractions, never floats), citing the clause of every rule it implements.
Certification suites use them to check equipment that settles bets; simulators use
them to play.
"""
