// Injected after the page's own script by browser_test.py --interact (the synthetic report):
// drives the timeline and a table with synthetic events and records what it saw in
// document.body.dataset.interact ("ok" or the failures, separated by "; ").
(function () {
  var canvas = document.getElementById('timeline');
  var failures = [];
  function check(condition, what) { if (!condition) failures.push(what); }
  function mouse(type, x, y, extra) {
    var box = canvas.getBoundingClientRect();
    var init = { clientX: box.left + x, clientY: box.top + y, bubbles: true, cancelable: true };
    for (var key in extra || {}) init[key] = extra[key];
    (type === 'wheel' ? canvas.dispatchEvent(new WheelEvent(type, init))
                      : canvas.dispatchEvent(new MouseEvent(type, init)));
  }
  var tooltip = document.getElementById('tooltip'), detail = document.getElementById('detail');
  // The first lane (below the ruler and the first process band) starts with the "Frame" marker.
  mouse('mousemove', 250, 55);
  check(!tooltip.hidden && tooltip.textContent.indexOf('Frame') === 0, 'hover shows Frame: ' + tooltip.textContent);
  check(tooltip.textContent.indexOf('user=frame=1') >= 0, 'hover shows the user string');
  mouse('mousedown', 250, 55);
  mouse('mouseup', 250, 55);
  check(detail.textContent.indexOf('Frame') === 0, 'click pins Frame: ' + detail.textContent);
  var before = canvas.toDataURL();
  mouse('wheel', 300, 55, { deltaY: -120 });
  mouse('wheel', 300, 55, { deltaY: -120 });
  var zoomed = canvas.toDataURL();
  check(zoomed !== before, 'wheel zoom redraws');
  mouse('mousedown', 500, 55);
  mouse('mousemove', 400, 55);
  mouse('mouseup', 400, 55);
  check(canvas.toDataURL() !== zoomed, 'drag pans');
  document.getElementById('zoom-reset').click();
  check(canvas.toDataURL() === before, 'reset returns to the whole trace');
  document.getElementById('zoom-in').click();
  check(canvas.toDataURL() !== before, 'the zoom-in button redraws');
  document.getElementById('zoom-out').click();
  mouse('mousemove', 245 + 1, 5);
  check(tooltip.hidden, 'no tooltip over the ruler');
  // Numeric sort: 1, 3, 12 (a text sort would give 1, 12, 3).
  var table = document.querySelector('#table-CLAPISummary table');
  table.tHead.rows[0].cells[1].click();
  var calls = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[1].textContent; });
  check(calls.join(',') === '1,3,12', 'numeric sort ascending: ' + calls.join(','));
  table.tHead.rows[0].cells[1].click();
  calls = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[1].textContent; });
  check(calls.join(',') === '12,3,1', 'numeric sort descending: ' + calls.join(','));
  document.body.dataset.interact = failures.length ? failures.join('; ') : 'ok';
})();
