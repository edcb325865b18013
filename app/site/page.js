// Hovering a tree line lights its bytes; hovering a byte lights the
// deepest node over it and that node's bytes. A link can do the same:
// #q12 lights node q12, #response@25 byte 25 of the response.
(function () {
  var lit = [];
  function clear() {
    for (var i = 0; i < lit.length; i++) lit[i].classList.remove('hi');
    lit = [];
  }
  function light(line, cells) {
    clear();
    if (!line) return;
    line.classList.add('hi');
    lit.push(line);
    var s = +line.getAttribute('data-s'), e = +line.getAttribute('data-e');
    for (var i = s; i < e && i < cells.length; i++) {
      cells[i].classList.add('hi');
      lit.push(cells[i]);
    }
  }
  function hover(t, cells) {
    if (t.closest) t = t.closest('span.n, td[data-o]') || t;
    if (t.matches && t.matches('span.n')) light(t, cells);
    else if (t.matches && t.matches('td[data-o]')) light(document.getElementById(t.getAttribute('data-n')), cells);
  }
  function cellsOf(sec) { return sec.querySelectorAll('td[data-o]'); }
  var sides = document.querySelectorAll('section.side');
  for (var k = 0; k < sides.length; k++) (function (sec) {
    var cells = cellsOf(sec);
    sec.addEventListener('mouseover', function (ev) { hover(ev.target, cells); });
    sec.addEventListener('mouseleave', clear);
  })(sides[k]);
  function fromHash() {
    var h = decodeURIComponent(location.hash.slice(1)), at = h.indexOf('@');
    var sec = document.getElementById(at < 0 ? '' : h.slice(0, at));
    var t = at < 0 ? document.getElementById(h) : sec && cellsOf(sec)[+h.slice(at + 1)];
    if (!t || !t.closest) return;
    var side = t.closest('section.side');
    if (side) hover(t, cellsOf(side));
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
  // Marks that the script ran (the Chromium test reads it back).
  document.documentElement.setAttribute('data-js', 'ready');
})();
