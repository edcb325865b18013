// Hovering a tree line lights its bytes; hovering a byte lights the
// deepest node over it and that node's bytes.
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
  var sides = document.querySelectorAll('section.side');
  for (var k = 0; k < sides.length; k++) (function (sec) {
    var cells = sec.querySelectorAll('td[data-o]');
    sec.addEventListener('mouseover', function (ev) {
      var t = ev.target;
      if (t.closest) t = t.closest('span.n, td[data-o]') || t;
      if (t.matches && t.matches('span.n')) light(t, cells);
      else if (t.matches && t.matches('td[data-o]')) light(document.getElementById(t.getAttribute('data-n')), cells);
    });
    sec.addEventListener('mouseleave', clear);
  })(sides[k]);
  // Marks that the script ran (the Chromium test reads it back).
  document.documentElement.setAttribute('data-js', 'ready');
})();
