"""page_check.py PAGE - that an mmtune report page stands alone and parses: the whole page
and each of its SVGs are well-formed XML (minidom), and nothing in it is fetched from
elsewhere (no src, no link, no url() but the namespaces' names). Prints the number of SVGs
and exits 1 with the reason otherwise. Run by tests/cli_report.sh."""
import re
import sys
import xml.dom.minidom

text = open(sys.argv[1], encoding='utf-8').read()
try:
    page = xml.dom.minidom.parseString(text)
except Exception as e:
    sys.exit('the page is not well-formed: %s' % e)
svgs = re.findall(r'<svg\b.*?</svg>', text, re.S)
for i, svg in enumerate(svgs):
    try:
        xml.dom.minidom.parseString(svg)
    except Exception as e:
        sys.exit('SVG %d is not well-formed: %s' % (i + 1, e))
if len(svgs) != len(page.getElementsByTagName('svg')):
    sys.exit('%d <svg> in the text, %d in the document' % (len(svgs), len(page.getElementsByTagName('svg'))))
for pattern in (r'\bsrc\s*=', r'<link\b', r'url\(', r'@import', r'<img\b', r'<iframe\b', r'https?://(?!www\.w3\.org/)'):
    found = re.search(pattern, text)
    if found:
        sys.exit('the page refers to something outside it: %r' % text[max(found.start() - 40, 0):found.end() + 40])
print('%d SVGs, well-formed, self-contained' % len(svgs))
