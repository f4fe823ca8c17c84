"""The Audit page's parts, each one job: the review queue, the verdict form, the judge picker,
the side by side, two judges' agreement and the judge's errors (with the correction they imply)."""
