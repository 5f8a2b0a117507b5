"""Reading outcomes and dimensions from camera frames, independently of what the equipment claims.

* :mod:`vision.dice_staged_reader` reads dice faces: the staged pipeline of :mod:`vision.dice_pipeline`
  (bodies, proposed squares, a learned per-die reader, the scene's checks); :mod:`vision.die_outline` outlines
  a read die for measuring. :mod:`vision.roulette` reads the pocket under the ball, after
  :mod:`vision.roulette_calibration`; :mod:`vision.roulette_audit` checks the pocket colours and
  :mod:`vision.roulette_motion` ball and rotor directions.
* :mod:`vision.settle` waits for a still scene and votes over several frames.
* :mod:`vision.scale`, :mod:`vision.measure` and :mod:`vision.measure_wheel` measure in mm against a
  printed ArUco target, with uncertainties and guarded acceptance.
* :mod:`vision.render` draws synthetic frames with ground truth for simulated cameras and tests.

Every reader declines (:class:`vision.declines.Decline`) rather than guess.
"""
