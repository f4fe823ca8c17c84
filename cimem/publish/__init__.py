"""What leaves cimem for readers who install nothing: a report of chosen runs as one HTML file
(inline SVG charts, no network request, a print stylesheet), its Markdown twin for a pull request
or wiki, a PDF through chromium when it is installed, and the runs' colours every chart shares.

The report's numbers come from the same functions as the Overview, Growth and Leaks pages and the
``metrics`` and ``growth`` commands, with the same defaults, so a figure reads the same in each.
"""
