"""The Learn page's numbers, apart from its drawing: the paper's Figure 1 as a table of reveals
(:mod:`.figure1`), the two metric modes side by side for the selected run (:mod:`.modes`) and
the simulator's curves (:mod:`.simulator`). The teaching cases and the simulation itself are
:mod:`cimem.demo.teaching`'s; these modules take them as arguments, since analysis sits below
demo."""
