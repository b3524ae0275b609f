// The fixed parts of the report page. The script builds DOM nodes with textContent only, so no
// trace string is ever parsed as markup, and it never writes a closing-tag sequence itself.
#include "report/report_assets.h"

namespace perfmarker::report {

const char* const kReportCss = R"CSS(
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d232b; background: #f6f7f9; }
header { padding: 10px 18px; background: #22303f; color: #eef2f6; }
header h1 { font-size: 19px; margin: 0 0 4px 0; }
header code { color: #b9d4ee; }
main { padding: 6px 18px 30px 18px; }
h2 { font-size: 15px; margin: 18px 0 6px 0; }
#errors { white-space: pre-wrap; background: #b3261e; color: #fff; padding: 6px 10px; margin-top: 6px; }
.notice { background: #fff4d6; border: 1px solid #e8c96a; padding: 4px 8px; margin: 4px 0; }
.toolbar { display: flex; gap: 8px; align-items: center; margin-bottom: 6px; flex-wrap: wrap; }
.toolbar button { font: inherit; padding: 2px 10px; }
.legend span { display: inline-block; margin-right: 10px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
.hint { color: #5b6570; }
#timeline-wrap { position: relative; max-height: 72vh; overflow-y: auto; border: 1px solid #c9ced6; background: #fff; }
#timeline { display: block; width: 100%; cursor: grab; }
#tooltip { position: absolute; pointer-events: none; background: rgba(24,30,38,.94); color: #f1f4f7;
  padding: 5px 8px; border-radius: 4px; white-space: pre-wrap; max-width: 520px; font-size: 12px; z-index: 2; }
#detail { background: #fff; border: 1px solid #c9ced6; padding: 6px 8px; white-space: pre-wrap;
  word-break: break-all; min-height: 1.4em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; font-size: 12px; }
th, td { border: 1px solid #d5dae1; padding: 2px 7px; text-align: left; white-space: nowrap; }
th { background: #e9edf2; cursor: pointer; user-select: none; }
th[data-sort="asc"]::after { content: " \25B2"; }
th[data-sort="desc"]::after { content: " \25BC"; }
tbody tr:nth-child(even) { background: #f7f9fb; }
.notes { color: #5b6570; }
)CSS";

const char* const kReportErrorScript = R"JS(
(function () {
  var errors = [];
  function show() {
    var box = document.getElementById('errors');
    if (!box || !errors.length) return;
    box.hidden = false;
    box.textContent = 'Script errors on this page:\n' + errors.join('\n');
  }
  function record(text) {
    errors.push(String(text));
    document.documentElement.setAttribute('data-errors', String(errors.length));
    show();
  }
  window.onerror = function (message, source, line, column) {
    record(message + ' (line ' + line + ':' + column + ')');
    return false;
  };
  window.addEventListener('unhandledrejection', function (event) {
    record('Unhandled rejection: ' + event.reason);
  });
  document.addEventListener('DOMContentLoaded', show);
})();
)JS";

const char* const kReportTimelineMarkup = R"HTML(<div class="toolbar">
<button type="button" id="zoom-in">Zoom in</button>
<button type="button" id="zoom-out">Zoom out</button>
<button type="button" id="zoom-reset">Reset</button>
<span id="item-count"></span>
<span class="legend"><span><i style="background:#b784c9"></i>markers</span><span><i style="background:#7f9cbf"></i>API calls</span><span><i style="background:#e8833a"></i>kernels</span><span><i style="background:#4caf7a"></i>memory</span><span><i style="background:#9e9e9e"></i>other commands</span></span>
<span class="hint">wheel: zoom &middot; drag: pan &middot; click: details</span>
</div>
<div id="timeline-wrap"><canvas id="timeline" height="60"></canvas><div id="tooltip" hidden></div></div>
<pre id="detail">Click a slice to see its details.</pre>
)HTML";

const char* const kReportScript = R"JS(
(function () {
  'use strict';
  var COLORS = { api: '#7f9cbf', kernel: '#e8833a', memory: '#4caf7a', other: '#9e9e9e' };
  var ROW = 18, HEADER = 22, RULER = 24, GUTTER = 240;
  var data = JSON.parse(document.getElementById('timeline-data').textContent);
  var items = data.items, strings = data.strings;
  var canvas = document.getElementById('timeline');
  var ctx = canvas.getContext('2d');
  var tooltip = document.getElementById('tooltip');
  var detail = document.getElementById('detail');

  function formatDuration(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return Math.round(ns) + ' ns';
  }

  function newLane(label) { return { label: label, items: [], maxDur: 0 }; }

  // One lane per marker depth, one for API calls, one for device commands, per track.
  function buildLayout() {
    var perTrack = data.tracks.map(function () {
      return { markers: [], api: newLane(''), device: newLane(''), depth: -1 };
    });
    items.forEach(function (item, index) {
      var t = perTrack[item[0]];
      if (item[4] === 'marker') {
        while (t.depth < item[5]) { t.depth++; t.markers.push(newLane('')); }
        t.markers[item[5]].items.push(index);
      } else {
        (item[4] === 'api' ? t.api : t.device).items.push(index);
      }
    });
    var rows = [], y = RULER, lastProcess = -1;
    data.tracks.forEach(function (track, trackIndex) {
      if (track.process !== lastProcess) {
        lastProcess = track.process;
        var p = data.processes[track.process];
        rows.push({ header: true, y: y, h: HEADER, label: 'process ' + p.pid + ' \u2014 ' + p.name, items: [] });
        y += HEADER;
      }
      var t = perTrack[trackIndex], lanes = t.markers.slice();
      if (lanes.length) lanes[0].label = track.label + ' markers';
      if (t.api.items.length) { t.api.label = track.label + (lanes.length ? ' API' : ''); lanes.push(t.api); }
      if (t.device.items.length) { t.device.label = track.label; lanes.push(t.device); }
      if (!lanes.length) lanes.push(newLane(track.label));
      lanes.forEach(function (lane) {
        lane.y = y; lane.h = ROW; y += ROW; rows.push(lane);
        lane.items.forEach(function (i) { if (items[i][2] > lane.maxDur) lane.maxDur = items[i][2]; });
      });
    });
    return { rows: rows, height: y + 6 };
  }

  var layout = buildLayout();
  var fullEnd = 1;
  items.forEach(function (item) { if (item[1] + item[2] > fullEnd) fullEnd = item[1] + item[2]; });
  fullEnd *= 1.02;  // a little room after the last slice
  var view = { start: 0, end: fullEnd };
  var selected = -1;

  function plotWidth() { return Math.max(50, canvas.clientWidth - GUTTER); }
  function xOf(t) { return GUTTER + (t - view.start) / (view.end - view.start) * plotWidth(); }
  function timeAt(x) { return view.start + (x - GUTTER) / plotWidth() * (view.end - view.start); }

  // First position in `lane` whose item starts at or after `t`.
  function lowerBound(lane, t) {
    var lo = 0, hi = lane.items.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (items[lane.items[mid]][1] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function hashHue(text) {
    var h = 0;
    for (var i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    return Math.abs(h) % 360;
  }

  function colorOf(item) {
    // Markers stay in the purple-to-rose range, apart from the fixed colours of the other kinds.
    if (item[4] === 'marker') return 'hsl(' + (265 + hashHue(strings[item[3]]) % 80) + ',45%,70%)';
    return COLORS[item[4]] || COLORS.other;
  }

  function drawRuler(width) {
    ctx.fillStyle = '#eef1f5';
    ctx.fillRect(0, 0, width, RULER);
    var span = view.end - view.start, target = span / 8;
    var step = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
    if (target / step > 5) step *= 5; else if (target / step > 2) step *= 2;
    ctx.fillStyle = '#4a5561';
    ctx.strokeStyle = '#e3e7ec';
    for (var t = Math.ceil(view.start / step) * step; t <= view.end; t += step) {
      var x = Math.round(xOf(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, RULER - 6); ctx.lineTo(x, layout.height); ctx.stroke();
      ctx.fillText(formatDuration(t).replace(/(\.\d*?)0+ /, '$1 ').replace('. ', ' '), x + 3, 14);
    }
  }

  function drawLane(lane, width) {
    var from = lowerBound(lane, view.start - lane.maxDur), lastPixel = -1;
    for (var k = from; k < lane.items.length; k++) {
      var index = lane.items[k], item = items[index];
      if (item[1] > view.end) break;
      if (item[1] + item[2] < view.start) continue;
      var x0 = Math.max(GUTTER, xOf(item[1])), x1 = Math.min(width, xOf(item[1] + item[2]));
      if (x1 - x0 < 1) {
        if (Math.floor(x0) === lastPixel) continue;  // many tiny slices share one pixel column
        x1 = x0 + 1;
      }
      lastPixel = Math.floor(x1 - 1);
      ctx.fillStyle = index === selected ? '#d81b60' : colorOf(item);
      ctx.fillRect(x0, lane.y + 2, x1 - x0, lane.h - 4);
      if (x1 - x0 > 36) {
        var name = strings[item[3]], room = Math.floor((x1 - x0 - 6) / 6.5);
        ctx.fillStyle = '#14181d';
        ctx.fillText(name.length > room ? name.slice(0, Math.max(room - 1, 1)) + '\u2026' : name, x0 + 3, lane.y + 13);
      }
    }
  }

  function draw() {
    var ratio = window.devicePixelRatio || 1, width = canvas.clientWidth;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(layout.height * ratio);
    canvas.style.height = layout.height + 'px';
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.font = '11px system-ui, sans-serif';
    ctx.clearRect(0, 0, width, layout.height);
    drawRuler(width);
    layout.rows.forEach(function (row) {
      if (row.header) {
        ctx.fillStyle = '#dde4ec';
        ctx.fillRect(0, row.y, width, row.h);
      } else {
        drawLane(row, width);
      }
      ctx.fillStyle = '#f6f7f9';
      if (!row.header) ctx.fillRect(0, row.y, GUTTER - 4, row.h);
      ctx.fillStyle = row.header ? '#22303f' : '#3a4450';
      ctx.fillText(row.label.length > 40 ? row.label.slice(0, 39) + '\u2026' : row.label, 6, row.y + 14);
    });
  }

  function hit(x, y) {
    if (x < GUTTER) return -1;
    var row = null;
    layout.rows.forEach(function (r) { if (!r.header && y >= r.y && y < r.y + r.h) row = r; });
    if (!row || !row.items.length) return -1;
    var slack = 2 * (view.end - view.start) / plotWidth(), t = timeAt(x);
    for (var k = lowerBound(row, t + slack) - 1; k >= 0; k--) {
      var item = items[row.items[k]];
      if (item[1] + row.maxDur < t - slack) break;
      if (item[1] - slack <= t && item[1] + item[2] + slack >= t) return row.items[k];
    }
    return -1;
  }

  function describe(index) {
    var item = items[index], track = data.tracks[item[0]];
    var lines = [strings[item[3]], item[4] + ' \u00b7 ' + formatDuration(item[2]) + ' \u00b7 at ' +
                 formatDuration(item[1]), track.label + ' \u00b7 process ' + data.processes[track.process].pid];
    if (item[6]) lines.push(item[6]);
    return lines.join('\n');
  }

  function zoom(factor, anchorX) {
    var anchor = timeAt(anchorX), span = (view.end - view.start) * factor;
    span = Math.min(Math.max(span, 100), fullEnd * 4);
    var share = (anchorX - GUTTER) / plotWidth();
    view.start = anchor - share * span;
    view.end = view.start + span;
    draw();
  }

  function position(event) {
    var box = canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  var drag = null;
  canvas.addEventListener('wheel', function (event) {
    event.preventDefault();
    zoom(event.deltaY > 0 ? 1.25 : 0.8, Math.max(position(event).x, GUTTER));
  }, { passive: false });
  canvas.addEventListener('mousedown', function (event) {
    drag = { x: event.clientX, start: view.start, end: view.end, moved: false };
  });
  window.addEventListener('mouseup', function (event) {
    if (drag && !drag.moved && event.target === canvas) {
      var p = position(event);
      selected = hit(p.x, p.y);
      detail.textContent = selected >= 0 ? describe(selected) : 'Click a slice to see its details.';
      draw();
    }
    drag = null;
  });
  canvas.addEventListener('mousemove', function (event) {
    var p = position(event);
    if (drag) {
      var dx = event.clientX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      var shift = dx / plotWidth() * (drag.end - drag.start);
      view.start = drag.start - shift;
      view.end = drag.end - shift;
      tooltip.hidden = true;
      draw();
      return;
    }
    var index = hit(p.x, p.y);
    tooltip.hidden = index < 0;
    if (index >= 0) {
      tooltip.textContent = describe(index);
      tooltip.style.left = Math.min(p.x + 14, canvas.clientWidth - 360) + 'px';
      tooltip.style.top = (p.y + 16) + 'px';
    }
  });
  canvas.addEventListener('mouseleave', function () { tooltip.hidden = true; });
  function center() { return GUTTER + plotWidth() / 2; }
  document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5, center()); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(2, center()); });
  document.getElementById('zoom-reset').addEventListener('click', function () {
    view.start = 0; view.end = fullEnd; draw();
  });
  window.addEventListener('resize', draw);

  // Sortable summary tables: numbers by value (thousands separators ignored), text otherwise.
  function cellValue(row, column) {
    var cell = row.cells[column];
    return cell ? cell.textContent.trim() : '';
  }
  function sortTable(table, column, th) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (row) {
      var v = cellValue(row, column).replace(/,/g, '');
      return v === '' || !isNaN(parseFloat(v)) && isFinite(v.replace(/[%a-zA-Z ]+$/, ''));
    });
    var descending = th.getAttribute('data-sort') === 'asc';
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute('data-sort'); });
    th.setAttribute('data-sort', descending ? 'desc' : 'asc');
    rows.sort(function (a, b) {
      var x = cellValue(a, column), y = cellValue(b, column), order;
      if (numeric) order = (parseFloat(x.replace(/,/g, '')) || 0) - (parseFloat(y.replace(/,/g, '')) || 0);
      else order = x.localeCompare(y);
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.addEventListener('click', function () { sortTable(table, column, th); });
    });
  });

  var count = document.getElementById('item-count');
  count.textContent = items.length + ' slices' + (data.totalItems > items.length ? ' (of ' + data.totalItems + ')' : '') +
                      ', ' + data.processes.length + ' process' + (data.processes.length === 1 ? '' : 'es');
  if (!items.length) detail.textContent = 'No timeline data in these traces.';
  draw();
  document.body.dataset.items = String(items.length);
  document.body.dataset.ready = '1';
})();
)JS";

}  // namespace perfmarker::report
