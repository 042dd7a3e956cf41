"""``commoncause analyze``: does a team communicate through its discards, and how much?

Following Lowe et al. (2019), the report separates *listening* (the discard changes what the
partner does, measured by intervening on it) from *signalling* (the discard depends on the
speaker's private cards, measured with probes), and prices the channel with ablations:

* W: the team's win rate; W_blind: the listener sees a random other legal discard in place
  of the speaker's last one (the real game unchanged, ``interventions``); W_total:
  the speaker's discards are random legal discards. W - W_blind is the value of the message,
  W_blind - W_total the value of the discard choice as hand management.
* W_open (``--open-team``): a team trained on open hands, on open hands: an empirical upper
  bound; efficiency = (W - W_blind) / (W_open - W_blind).
* Listening: pickup rate of the partner's discards, response rate and causal influence
  (Jaques et al. 2019) at the listener's decisions; signalling: probes (``probes``);
  conventions: what the listener does next by the discard's category; cross-play.

Every condition plays the same deals (game ``i`` from ``deal_seed(seed, i)``), so every
comparison is paired. Output: ``report.md``, PNG plots and ``figures.json`` in ``--out``.

The package, in the order the work flows:

* ``cli``: the command's options and checks (``commoncause analyze``);
* ``figures``: ``analyze()``, which decides the conditions, plays them and gathers the figures;
* ``runs``: plays the conditions (``play_runs``) in the worker pool evaluation uses;
* ``interventions``: one game in a mode (normal, blind, total), logging discards and
  listening; ``probes``: the logistic probes of the signalling measures;
* ``measures`` (per run: listening, signalling, conventions) and ``stats`` (intervals,
  bootstrap, pooled cross-play);
* ``format`` (text and the headline table), ``plots`` (PNGs) and ``report`` (``report.md``
  with its verdicts, ``figures.json``).
"""

from .figures import analyze
from .report import write_report

__all__ = ["analyze", "write_report"]
