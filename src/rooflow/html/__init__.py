"""Interactive roofline pages: one HTML file each (Bokeh), its JS inlined or shared.

=================== ===================================================================
module              holds
=================== ===================================================================
:mod:`.figure`      the log-log figure with the preset's roofs, ridge point and labels
                    (the same as the PNG's, :mod:`rooflow.plotting`), and page writing
:mod:`.page`        one analysis table as points with hover, toggling legends and, for
                    big tables, the top-N points plus a density layer for the rest
:mod:`.compare`     a run-to-run comparison (:mod:`rooflow.compare`) as arrows
:mod:`.bokehdoc`    the pages' models written as Bokeh's document JSON (each property
                    checked by Bokeh's), the figure ``bokeh.plotting`` makes, the HTML
:mod:`.bokehjs`     one shared copy of Bokeh's JS for the workflow's pages
=================== ===================================================================

Every text that comes from an input (kernel names, labels, series, file names) reaches the
page only as data of a Bokeh source (shown in canvas text or in tooltips, which Bokeh
HTML-escapes) or through :func:`html.escape`; no input is ever put into markup unescaped.
The pages load no script from the network: Bokeh's JS is inlined (``bokeh.resources.INLINE``),
or, for the workflow's many pages, loaded from one shared copy by a relative path
(:mod:`.bokehjs`).
"""
