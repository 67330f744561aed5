// Charts and table sorting of the iolens HTML report. Data come from the
// JSON element #iolens-data; text from the log is escaped before it reaches
// any HTML (tooltips) and set with textContent elsewhere.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('iolens-data').textContent);
  var charts = {};
  // Charts that insights can highlight: id -> { chart, cols, group, unit,
  // series: [{ id, data, idx (of the element index in a datum), opacity, make }] }.
  var layerCharts = {};
  window.iolens = { charts: charts, ready: false, layer: { active: -1, code: '', highlighted: {} } };

  var ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ESC[c]; }); }

  function fmtBytes(n) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'], i = 0;
    n = Number(n);
    while (Math.abs(n) >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return i === 0 ? n + ' B' : n.toFixed(1) + ' ' + u[i];
  }
  function fmtSec(s) {
    var a = Math.abs(s);
    if (a === 0) return '0 s';
    if (a < 1e-3) return (s * 1e6).toPrecision(3) + ' µs';
    if (a < 1) return (s * 1e3).toPrecision(4) + ' ms';
    return s.toPrecision(5) + ' s';
  }
  function rankText(r, group) {
    return group > 1 ? 'ranks ' + r + '–' + (r + group - 1) : 'rank ' + r;
  }
  function row(k, v) { return '<tr><td style="padding-right:10px;color:#59636e">' + esc(k) + '</td><td>' + v + '</td></tr>'; }
  function table(rows) { return '<table style="font-size:12px">' + rows.join('') + '</table>'; }
  function fileRow(name) { return row('file', '<span style="font-family:monospace">' + esc(name) + '</span>'); }
  function sizeRow(n) { return row('size', esc(n + ' B (' + fmtBytes(n) + ')')); }

  var KIND = ['read', 'write'];
  var COLORS = [['#1565c0', '#e65100'], ['#64b5f6', '#ffb74d']];

  function fileName(tr, f) {
    if (f === -1) return 'several files';
    return tr.files[f] === undefined ? '?' : tr.files[f];
  }

  function newChart(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    var c = echarts.init(el, null, { renderer: 'canvas' });
    charts[id] = c;
    window.addEventListener('resize', function () { c.resize(); });
    return c;
  }

  function phaseAreas(tr, withStragglers, group) {
    var out = [];
    data.phases.forEach(function (p, i) {
      out.push([{ name: 'phase ' + i, xAxis: p.start, itemStyle: { color: i % 2 ? 'rgba(120,144,156,0.10)' : 'rgba(120,144,156,0.18)' } }, { xAxis: p.end }]);
      if (withStragglers && tr) {
        var r = p.slowest_rank;
        var g = group || 1;
        var r0 = tr.rank_min + Math.floor((r - tr.rank_min) / g) * g;
        out.push([{ name: 'straggler: rank ' + r, xAxis: p.start, yAxis: r0 - 0.5, itemStyle: { color: 'rgba(198,40,40,0.22)', borderColor: '#c62828', borderWidth: 1 } },
          { xAxis: p.end, yAxis: r0 + g - 0.5 }]);
      }
    });
    return out;
  }

  function phaseSeries(tr, withStragglers, group) {
    return {
      id: 'phases', name: 'phases', type: 'scatter', data: [], silent: false,
      markArea: { silent: false, label: { show: true, position: 'insideTop', color: '#59636e', fontSize: 10 },
        tooltip: { formatter: function (p) { return esc(p.name); } },
        data: phaseAreas(tr, withStragglers, group) }
    };
  }

  // Timeline: one bar per operation (or bin) per rank.
  function timeline(tr) {
    var c = newChart('timeline');
    if (!c) return;
    var tl = tr.timeline, group = tl.group || 1;
    var mods = [];
    tl.kind.forEach(function (_, i) { if (mods.indexOf(tl.mod[i]) < 0) mods.push(tl.mod[i]); });
    mods.sort();
    var bySeries = {};
    for (var i = 0; i < tl.kind.length; i++) {
      var key = tl.mod[i] + ':' + tl.kind[i];
      (bySeries[key] = bySeries[key] || []).push([tl.t0[i], tl.t1[i], tl.rank[i], i]);
    }
    var series = [], spec = { chart: c, cols: tl, group: group, unit: tl.exact ? 'operations' : 'bars', series: [] };
    mods.forEach(function (m, lane) {
      [0, 1].forEach(function (k) {
        var d = bySeries[m + ':' + k];
        if (!d) return;
        var make = function (d, opacity) {
          return {
          name: tr.modules[m] + ' ' + KIND[k], type: 'custom', data: d,
          encode: { x: [0, 1], y: 2 }, progressive: 20000, progressiveThreshold: 30000,
          itemStyle: { color: COLORS[Math.min(lane, 1)][k], opacity: opacity },
          renderItem: function (params, api) {
            var t0 = api.value(0), t1 = api.value(1), r = api.value(2);
            var top = r - 0.5 + group * lane / mods.length + 0.04 * group;
            var bot = r - 0.5 + group * (lane + 1) / mods.length - 0.04 * group;
            var a = api.coord([t0, top]), b = api.coord([t1, bot]);
            var x = Math.min(a[0], b[0]), y = Math.min(a[1], b[1]);
            var rect = echarts.graphic.clipRectByRect(
              { x: x, y: y, width: Math.max(Math.abs(b[0] - a[0]), 1), height: Math.max(Math.abs(b[1] - a[1]), 1) },
              { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
            return rect && { type: 'rect', shape: rect, style: api.style(), transition: [] };
          }
          };
        };
        var id = 'tl-' + m + '-' + k;
        spec.series.push({ id: id, data: d, idx: 3, opacity: 1, make: make });
        series.push(Object.assign(make(d, 1), { id: id }));
      });
    });
    layerCharts.timeline = spec;
    series.push(phaseSeries(tr, true, group));
    c.setOption({
      animation: false,
      legend: { top: 0 },
      grid: { left: 70, right: 70, top: 40, bottom: 70 },
      tooltip: {
        trigger: 'item', confine: true,
        formatter: function (p) {
          if (p.componentType === 'markArea') return esc(p.name);
          var i = p.value[3];
          var rows = [row('operation', esc(p.seriesName)), row(group > 1 ? 'ranks' : 'rank', esc(rankText(tl.rank[i], group))),
            fileRow(fileName(tr, tl.file[i]))];
          if (tl.exact) {
            rows.push(row('offset', tl.off[i] < 0 ? 'not recorded' : esc(tl.off[i] + ' (' + fmtBytes(tl.off[i]) + ')')));
            rows.push(sizeRow(tl.size[i]));
            rows.push(row('start', esc(fmtSec(tl.t0[i]))));
            rows.push(row('duration', esc(fmtSec(tl.t1[i] - tl.t0[i]))));
          } else {
            rows.push(row('operations', esc(tl.count[i] + ' (aggregated)')));
            rows.push(row('bytes', esc(fmtBytes(tl.size[i]))));
            rows.push(row('span', esc(fmtSec(tl.t0[i]) + ' to ' + fmtSec(tl.t1[i]))));
            rows.push(row('busy time', esc(fmtSec(tl.busy[i]))));
          }
          return table(rows);
        }
      },
      xAxis: { type: 'value', name: 'time (s)', nameLocation: 'middle', nameGap: 28, axisLine: { onZero: false }, min: tr.tmin, max: tr.tmax, scale: true,
        axisLabel: { formatter: function (v) { return fmtSec(v); } } },
      yAxis: { type: 'value', name: 'rank', inverse: true, min: tr.rank_min - 0.5, max: tr.rank_max + 0.5,
        minInterval: 1, axisLabel: { formatter: function (v) { return Number.isInteger(v) ? String(v) : ''; } }, splitLine: { show: false } },
      dataZoom: [
        { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', bottom: 8, height: 20 },
        { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' },
        { type: 'slider', yAxisIndex: 0, filterMode: 'weakFilter', right: 10, width: 20 },
        { type: 'inside', yAxisIndex: 0, filterMode: 'weakFilter', zoomOnMouseWheel: 'shift', moveOnMouseWheel: false, moveOnMouseMove: false }
      ],
      series: series
    });
  }

  // Transfer sizes over time.
  function sizes(tr) {
    var c = newChart('sizes');
    if (!c) return;
    var s = tr.sizes;
    var d = [[], []];
    for (var i = 0; i < s.kind.length; i++) d[s.kind[i]].push([s.t0[i], Math.max(s.size[i], 1), i]);
    var spec = { chart: c, cols: s, group: 1, unit: s.exact ? 'operations' : 'points', series: [] };
    var series = [0, 1].filter(function (k) { return d[k].length; }).map(function (k) {
      var make = function (d, opacity) {
        return { name: KIND[k], type: 'scatter', data: d, symbolSize: s.exact ? 4 : 6, large: true, largeThreshold: 5000,
          itemStyle: { color: COLORS[0][k], opacity: opacity } };
      };
      spec.series.push({ id: 'sz-' + k, data: d[k], idx: 2, opacity: 0.7, make: make });
      return Object.assign(make(d[k], 0.7), { id: 'sz-' + k });
    });
    layerCharts.sizes = spec;
    series.push(phaseSeries(tr, false));
    c.setOption({
      animation: false,
      legend: { top: 0 },
      grid: { left: 80, right: 40, top: 40, bottom: 70 },
      tooltip: {
        trigger: 'item', confine: true,
        formatter: function (p) {
          if (p.componentType === 'markArea') return esc(p.name);
          var i = p.value[2];
          var rows = [row('operation', esc(p.seriesName))];
          if (s.exact) {
            rows.push(row('rank', esc(s.rank[i])), fileRow(fileName(tr, s.file[i])),
              row('offset', s.off[i] < 0 ? 'not recorded' : esc(String(s.off[i]))), sizeRow(s.size[i]),
              row('start', esc(fmtSec(s.t0[i]))));
          } else {
            rows.push(row('operations', esc(s.count[i] + ' (aggregated)')), row('mean size', esc(fmtBytes(s.size[i]))),
              row('sizes', esc(fmtBytes(s.min[i]) + ' to ' + fmtBytes(s.max[i]))), row('mean start', esc(fmtSec(s.t0[i]))));
          }
          return table(rows);
        }
      },
      xAxis: { type: 'value', name: 'time (s)', nameLocation: 'middle', nameGap: 28, axisLine: { onZero: false }, min: tr.tmin, max: tr.tmax,
        axisLabel: { formatter: function (v) { return fmtSec(v); } } },
      yAxis: { type: 'log', name: 'size', axisLabel: { formatter: function (v) { return fmtBytes(v); } } },
      dataZoom: [
        { type: 'slider', xAxisIndex: 0, filterMode: 'filter', bottom: 8, height: 20 },
        { type: 'inside', xAxisIndex: 0, filterMode: 'filter' }
      ],
      series: series
    });
  }

  // Spatiality: offsets by rank.
  function spatial(tr) {
    var c = newChart('spatial');
    if (!c) return;
    var s = tr.spatial, group = s.group || 1;
    var d = [[], []];
    for (var i = 0; i < s.kind.length; i++) d[s.kind[i]].push([s.off[i], s.rank[i], i]);
    var spec = { chart: c, cols: s, group: group, unit: s.exact ? 'operations' : 'points', series: [] };
    var series = [0, 1].filter(function (k) { return d[k].length; }).map(function (k) {
      var make = function (d, opacity) {
        return { name: KIND[k], type: 'scatter', data: d, symbolSize: 5, large: true, largeThreshold: 5000,
          itemStyle: { color: COLORS[0][k], opacity: opacity } };
      };
      spec.series.push({ id: 'sp-' + k, data: d[k], idx: 2, opacity: 0.7, make: make });
      return Object.assign(make(d[k], 0.7), { id: 'sp-' + k });
    });
    layerCharts.spatial = spec;
    c.setOption({
      animation: false,
      legend: { top: 0 },
      grid: { left: 70, right: 70, top: 40, bottom: 70 },
      tooltip: {
        trigger: 'item', confine: true,
        formatter: function (p) {
          var i = p.value[2];
          var rows = [row('operation', esc(p.seriesName)), row(group > 1 ? 'ranks' : 'rank', esc(rankText(s.rank[i], group))),
            fileRow(fileName(tr, s.file[i]))];
          if (s.exact) {
            rows.push(row('offset', esc(s.off[i] + ' (' + fmtBytes(s.off[i]) + ')')), sizeRow(s.size[i]));
          } else {
            rows.push(row('offsets from', esc(fmtBytes(s.off[i]))), row('operations', esc(s.count[i] + ' (aggregated)')), row('bytes', esc(fmtBytes(s.size[i]))));
          }
          return table(rows);
        }
      },
      xAxis: { type: 'value', name: 'file offset', nameLocation: 'middle', nameGap: 28, axisLine: { onZero: false }, min: 0,
        axisLabel: { formatter: function (v) { return fmtBytes(v); } } },
      yAxis: { type: 'value', name: 'rank', inverse: true, min: tr.rank_min - 0.5, max: tr.rank_max + 0.5, minInterval: 1,
        axisLabel: { formatter: function (v) { return Number.isInteger(v) ? String(v) : ''; } } },
      dataZoom: [
        { type: 'slider', xAxisIndex: 0, filterMode: 'filter', bottom: 8, height: 20 },
        { type: 'inside', xAxisIndex: 0, filterMode: 'filter' },
        { type: 'slider', yAxisIndex: 0, filterMode: 'filter', right: 10, width: 20 }
      ],
      series: series
    });
  }

  // Without traces: bytes per file from the counters.
  function fileBytes() {
    var c = newChart('filebytes');
    if (!c) return;
    var files = data.files.slice().sort(function (a, b) {
      return (b.bytes_read + b.bytes_written) - (a.bytes_read + a.bytes_written);
    }).slice(0, 30).reverse();
    var names = files.map(function (f) { return f.name; });
    c.setOption({
      animation: false,
      legend: { top: 0 },
      grid: { left: 20, right: 40, top: 40, bottom: 30, containLabel: true },
      tooltip: {
        trigger: 'item', confine: true,
        formatter: function (p) {
          return table([fileRow(names[p.dataIndex]),
            row(p.seriesName, esc(fmtBytes(p.value)))]);
        }
      },
      xAxis: { type: 'value', name: 'bytes', axisLabel: { formatter: function (v) { return fmtBytes(v); } } },
      yAxis: { type: 'category', data: names, axisLabel: { width: 320, overflow: 'truncate' } },
      series: [
        { name: 'read', type: 'bar', stack: 'b', data: files.map(function (f) { return f.bytes_read; }), itemStyle: { color: COLORS[0][0] } },
        { name: 'written', type: 'bar', stack: 'b', data: files.map(function (f) { return f.bytes_written; }), itemStyle: { color: COLORS[0][1] } }
      ]
    });
  }

  // Bottleneck layers: selecting an insight highlights, in every chart, the
  // operations of the ranks and files it names and dims the others.
  var DIM = 0.12;
  var CHART_NAMES = { timeline: 'Timeline', sizes: 'Transfer sizes', spatial: 'Spatiality' };

  // selector returns, for a chart's columns, a function of an element
  // index: 0 not selected, 1 selected, 2 selected by rank alone (the
  // element mixes several files).
  function selector(layer, tr) {
    var subs = layer.subjects.map(function (s) {
      var files = null;
      if (s.file) {
        files = {};
        tr.files.forEach(function (f, i) { if (f === s.file) files[i] = true; });
      }
      return { files: files, rank: s.rank === undefined || s.rank === null || s.rank < 0 ? null : s.rank };
    });
    return function (cols, group) {
      return function (i) {
        var best = 0;
        for (var j = 0; j < subs.length; j++) {
          var sub = subs[j], ok = true, known = false, partial = false;
          if (sub.files) {
            var f = cols.file ? cols.file[i] : undefined;
            if (f === undefined || f < 0) partial = true;
            else if (sub.files[f]) known = true;
            else ok = false;
          }
          if (ok && sub.rank !== null) {
            var r = cols.rank ? cols.rank[i] : undefined;
            if (r === undefined) ok = false; // the chart mixes ranks
            else if (sub.rank >= r && sub.rank < r + group) known = true;
            else ok = false;
          }
          if (ok && known) {
            if (!partial) return 1;
            best = 2;
          }
        }
        return best;
      };
    };
  }

  // highlight draws chart spec with the elements sel selects on top of the
  // dimmed others, or restores it when sel is null. It returns the counts.
  function highlight(spec, sel) {
    var out = [{ id: 'phases' }], n = 0, total = 0, byRank = 0;
    spec.series.forEach(function (s) {
      total += s.data.length;
      if (!sel) {
        out.push({ id: s.id, itemStyle: { opacity: s.opacity } });
        return;
      }
      var d = [];
      for (var i = 0; i < s.data.length; i++) {
        var m = sel(s.data[i][s.idx]);
        if (m) {
          d.push(s.data[i]);
          if (m === 2) byRank++;
        }
      }
      n += d.length;
      out.push({ id: s.id, itemStyle: { opacity: DIM } });
      if (d.length) out.push(Object.assign(s.make(d, 1), { id: 'hl-' + s.id, z: 5 }));
    });
    if (!spec.chart.getModel().getSeries().some(function (s) { return s.id === 'phases'; })) out.shift();
    spec.chart.setOption({ series: out }, { replaceMerge: ['series'] });
    return { n: n, total: total, byRank: byRank };
  }

  function subjectText(layer) {
    var ranks = [], files = [];
    layer.subjects.forEach(function (s) {
      if (s.rank !== undefined && s.rank !== null && s.rank >= 0 && ranks.indexOf(s.rank) < 0) ranks.push(s.rank);
      if (s.file && files.indexOf(s.file) < 0) files.push(s.file);
    });
    var parts = [];
    if (ranks.length) parts.push((ranks.length > 1 ? 'ranks ' : 'rank ') + ranks.join(', '));
    if (files.length) parts.push((files.length > 1 ? 'files ' : 'file ') + files.join(', '));
    return parts.join('; ');
  }

  function setLayer(idx) {
    var st = window.iolens.layer;
    if (idx === st.active) idx = -1;
    var tr = data.trace, layer = idx >= 0 ? data.layers[idx] : null;
    var make = layer ? selector(layer, tr) : null;
    var status = document.getElementById('layer-status');
    var notes = status.querySelector('.layer-notes');
    while (notes.firstChild) notes.removeChild(notes.firstChild);
    var counts = [], highlighted = {};
    var hasRank = layer && layer.subjects.some(function (s) { return s.rank !== undefined && s.rank !== null && s.rank >= 0; });
    Object.keys(layerCharts).forEach(function (id) {
      var spec = layerCharts[id];
      var r = highlight(spec, make ? make(spec.cols, spec.group) : null);
      highlighted[id] = r.n;
      if (!layer) return;
      counts.push(CHART_NAMES[id].toLowerCase() + ' ' + r.n + ' of ' + r.total + ' ' + spec.unit);
      var note = null;
      if (hasRank && !spec.cols.rank) {
        note = CHART_NAMES[id] + ': its points mix ranks, so only the files of this insight are highlighted there.';
      } else if (r.byRank) {
        note = CHART_NAMES[id] + ': ' + r.byRank + ' ' + spec.unit + ' hold operations of several files; they are highlighted by rank alone.';
      }
      if (note) {
        var li = document.createElement('li');
        li.textContent = note;
        notes.appendChild(li);
      }
    });
    document.querySelectorAll('#insights article.layer').forEach(function (a) {
      var on = Number(a.getAttribute('data-insight')) === idx;
      a.classList.toggle('active', on);
      a.setAttribute('aria-pressed', on ? 'true' : 'false');
      a.querySelector('.layer-hint').textContent = on ? 'highlighted in the charts below; click to clear' : 'click to highlight in the charts';
    });
    st.active = idx;
    st.code = layer ? layer.code : '';
    st.highlighted = highlighted;
    if (layer) {
      document.body.setAttribute('data-active-insight', layer.code);
      document.body.setAttribute('data-highlighted', String(Object.keys(highlighted).reduce(function (a, k) { return a + highlighted[k]; }, 0)));
      status.querySelector('.layer-text').textContent = 'Highlighted: ' + layer.code + ' (' + subjectText(layer) + '): ' + counts.join(', ') +
        (counts.length ? '.' : '');
      status.hidden = false;
    } else {
      document.body.removeAttribute('data-active-insight');
      document.body.removeAttribute('data-highlighted');
      status.hidden = true;
    }
  }

  function setupLayers() {
    if (!data.trace || !document.getElementById('layer-status')) return;
    document.getElementById('layer-clear').addEventListener('click', function () { setLayer(window.iolens.layer.active); });
    document.querySelectorAll('#insights article[data-insight]').forEach(function (a) {
      var idx = Number(a.getAttribute('data-insight'));
      var layer = data.layers[idx];
      if (!layer || !layer.subjects.length) return;
      a.classList.add('layer');
      a.setAttribute('role', 'button');
      a.setAttribute('tabindex', '0');
      a.setAttribute('aria-pressed', 'false');
      var hint = document.createElement('span');
      hint.className = 'layer-hint';
      hint.textContent = 'click to highlight in the charts';
      a.querySelector('h3').appendChild(hint);
      a.addEventListener('click', function () {
        var sel = window.getSelection && window.getSelection();
        if (sel && !sel.isCollapsed && a.contains(sel.anchorNode)) return; // selecting text
        setLayer(idx);
      });
      a.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          setLayer(idx);
        }
      });
    });
  }

  // Sortable tables: click a heading to sort by its column.
  function sortable(tbl) {
    var heads = tbl.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener('click', function () {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var num = th.getAttribute('data-type') === 'num';
        var body = tbl.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (r) {
          var cell = r.cells[col];
          var v = cell.hasAttribute('data-v') ? cell.getAttribute('data-v') : cell.textContent;
          return num ? parseFloat(v) : v.toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var d = num ? x - y : (x < y ? -1 : x > y ? 1 : 0);
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  document.querySelectorAll('table.sortable').forEach(sortable);
  if (data.trace) {
    timeline(data.trace);
    sizes(data.trace);
    spatial(data.trace);
    setupLayers();
  } else if (data.files.length) {
    fileBytes();
  }
  window.iolens.ready = true;
})();
