"""The Audit page's own parts: the review queue, the verdict form, the judge picker and live
re-judging, the side by side, and the agreement of two judges and of people."""
