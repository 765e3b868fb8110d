"""Ratings: OpenSkill's Plackett-Luce model over finished rated tables (:mod:`server.ratings.model`), the
ratings' rows and the one transaction that stores an update with its event (:mod:`server.ratings.store`), the
table's part at its game's end (:mod:`server.ratings.rater`), the reader other parts ask for a rating
(:class:`server.ratings.store.RatingReader`), and the RatingService (:mod:`server.ratings.service`)."""
