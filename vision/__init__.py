"""Reading outcomes and dimensions from camera frames, independently of what the equipment claims.

* :mod:`vision.dice` reads dice faces (``dice_segment`` finds die bodies, ``dice_pips`` the pips on the
  3x3 face grid); :mod:`vision.roulette` the pocket under the ball, after
  :mod:`vision.roulette_calibration`; :mod:`vision.roulette_audit` checks the pocket colours and
  :mod:`vision.roulette_motion` ball and rotor directions.
* :mod:`vision.settle` waits for a still scene and votes over several frames.
* :mod:`vision.scale`, :mod:`vision.measure` and :mod:`vision.measure_wheel` measure in mm against a
  printed ArUco target, with uncertainties and guarded acceptance.
* :mod:`vision.render` draws synthetic frames with ground truth for simulated cameras and tests.

Every reader declines (:class:`vision.declines.Decline`) rather than guess.
"""
