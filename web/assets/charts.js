// iolens serve: the charts of a page, drawn with Apache ECharts from the
// JSON of #chart-data into every element with a data-chart attribute.
// When all have drawn, body gets data-charts-drawn="N".
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('chart-data').textContent);
  const colors = { read: '#1565c0', written: '#ef6c00', jobs: '#424a53', time: '#1565c0', usual: '#8c959f', regression: '#c62828' };

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function bytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
    let v = Math.abs(n), i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return i === 0 ? n + ' B' : (n < 0 ? '-' : '') + v.toFixed(1) + ' ' + units[i];
  }
  function seconds(s) {
    if (s === 0) return '0 s';
    if (s < 10) return s.toPrecision(3) + ' s';
    if (s < 60) return s.toFixed(1) + ' s';
    if (s < 3600) { const r = Math.round(s); return Math.floor(r / 60) + ' min ' + String(r % 60).padStart(2, '0') + ' s'; }
    const m = Math.round(s / 60);
    return Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min';
  }
  function when(ms) {
    return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  }
  const grid = { left: 80, right: 64, top: 40, bottom: 40 };
  const splitLine = { lineStyle: { color: '#eaeef2' } };
  const byteUnits = [[1, 'B'], [1024, 'KiB'], [Math.pow(1024, 2), 'MiB'], [Math.pow(1024, 3), 'GiB'], [Math.pow(1024, 4), 'TiB'], [Math.pow(1024, 5), 'PiB']];

  // niceAxis returns a value axis up to max whose labels are round
  // numbers of one unit ([factor, name]), the one pick chooses for max.
  function niceAxis(max, pick) {
    const unit = pick(max);
    if (!(max > 0)) return { type: 'value', splitLine: splitLine, axisLabel: { formatter: function (v) { return v + ' ' + unit[1]; } } };
    const raw = max / unit[0] / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map(function (m) { return m * mag; }).find(function (x) { return x >= raw; }) * unit[0];
    return {
      type: 'value', interval: step, max: Math.ceil(max / step) * step, splitLine: splitLine,
      axisLabel: { formatter: function (v) { return String(Number((v / unit[0]).toPrecision(6))) + ' ' + unit[1]; } }
    };
  }
  function bytesAxis(max) {
    return niceAxis(max, function (m) {
      let u = byteUnits[0];
      for (const x of byteUnits) if (m >= x[0]) u = x;
      return u;
    });
  }
  function secondsAxis(max) {
    return niceAxis(max, function (m) { return m >= 7200 ? [3600, 'h'] : m >= 120 ? [60, 'min'] : [1, 's']; });
  }
  function maxOf(a) { return a.reduce(function (m, v) { return Math.max(m, v); }, 0); }
  const timeAxis = {
    type: 'time',
    axisLabel: { hideOverlap: true, formatter: { year: '{yyyy}', month: '{MMM} {yyyy}', day: '{MMM} {d}', hour: '{HH}:{mm}', minute: '{HH}:{mm}', second: '{HH}:{mm}:{ss}' } }
  };

  const builders = {
    // Jobs (line, right axis) and bytes read and written (stacked bars) per day.
    days: function (d, chart) {
      chart.on('click', function (p) {
        const day = d.days.dates[p.dataIndex];
        window.location.assign('/jobs?since=' + encodeURIComponent(day) + '&until=' + encodeURIComponent(day));
      });
      return {
        color: [colors.read, colors.written, colors.jobs],
        legend: { top: 4 },
        grid: grid,
        tooltip: {
          trigger: 'axis',
          formatter: function (ps) {
            const i = ps[0].dataIndex;
            return esc(d.days.dates[i]) + '<br>' + d.days.jobs[i] + ' jobs<br>read ' + bytes(d.days.read[i]) + '<br>written ' + bytes(d.days.written[i]);
          }
        },
        xAxis: { type: 'category', data: d.days.dates },
        yAxis: [bytesAxis(maxOf(d.days.read.map(function (r, i) { return r + d.days.written[i]; }))),
          { type: 'value', name: 'jobs', minInterval: 1, splitLine: { show: false } }],
        series: [
          { name: 'read', type: 'bar', stack: 'bytes', data: d.days.read, barMaxWidth: 48, cursor: 'pointer' },
          { name: 'written', type: 'bar', stack: 'bytes', data: d.days.written, barMaxWidth: 48, cursor: 'pointer' },
          { name: 'jobs', type: 'line', yAxisIndex: 1, data: d.days.jobs, symbolSize: 7 }
        ]
      };
    },
    // I/O time summed over jobs, per interface.
    interfaces: function (d) {
      return {
        color: [colors.time],
        grid: { left: 130, right: 80, top: 16, bottom: 32 },
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: seconds },
        xAxis: secondsAxis(maxOf(d.interfaces.times)),
        yAxis: { type: 'category', data: d.interfaces.names, inverse: true },
        series: [{ name: 'I/O time', type: 'bar', data: d.interfaces.times, barMaxWidth: 28,
          label: { show: true, position: 'right', formatter: function (p) { return seconds(p.value); } } }]
      };
    },
    // I/O time of each run, regressions in red over the usual time.
    'app-io': function (d, chart) {
      const normal = [], flagged = [], usual = [];
      d.start.forEach(function (t, i) {
        (d.regression[i] ? flagged : normal).push([t, d.io_time[i], i]);
        if (d.usual[i] > 0) usual.push([t, d.usual[i]]);
      });
      chart.on('click', function (p) {
        if (p.seriesType === 'scatter') window.location.assign('/jobs/' + encodeURIComponent(d.ids[p.value[2]]));
      });
      return {
        useUTC: true,
        legend: { top: 4 },
        grid: { left: 80, right: 24, top: 40, bottom: 40 },
        tooltip: {
          trigger: 'item',
          formatter: function (p) {
            if (p.seriesType !== 'scatter') return esc(p.seriesName) + ': ' + seconds(p.value[1]);
            const i = p.value[2];
            return 'run ' + esc(d.ids[i]) + '<br>' + when(d.start[i]) + '<br>I/O time ' + seconds(d.io_time[i]) +
              (d.usual[i] > 0 ? '<br>usual ' + seconds(d.usual[i]) : '') + (d.regression[i] ? '<br><b>regression</b>' : '');
          }
        },
        dataZoom: [{ type: 'inside' }],
        xAxis: timeAxis,
        yAxis: secondsAxis(Math.max(maxOf(d.io_time), maxOf(d.usual))),
        series: [
          { name: 'usual (median of the runs before)', type: 'line', step: 'end', data: usual, symbol: 'none', color: colors.usual, lineStyle: { type: 'dashed' } },
          { name: 'run', type: 'scatter', data: normal, symbolSize: 9, color: colors.time, cursor: 'pointer' },
          { name: 'regression', type: 'scatter', data: flagged, symbolSize: 16, symbol: 'diamond', color: colors.regression, cursor: 'pointer' }
        ]
      };
    },
    // Bytes moved by each run.
    'app-bytes': function (d, chart) {
      chart.on('click', function (p) { window.location.assign('/jobs/' + encodeURIComponent(d.ids[p.dataIndex])); });
      return {
        useUTC: true,
        grid: { left: 80, right: 24, top: 40, bottom: 40 },
        tooltip: { trigger: 'item', formatter: function (p) { return 'run ' + esc(d.ids[p.dataIndex]) + '<br>' + when(p.value[0]) + '<br>' + bytes(p.value[1]); } },
        dataZoom: [{ type: 'inside' }],
        xAxis: timeAxis,
        yAxis: bytesAxis(maxOf(d.bytes)),
        series: [{ name: 'bytes', type: 'bar', barMaxWidth: 24, cursor: 'pointer',
          data: d.start.map(function (t, i) { return { value: [t, d.bytes[i]], itemStyle: { color: d.regression[i] ? colors.regression : colors.read } }; }) }]
      };
    }
  };

  const charts = {};
  const drawn = new Set();
  const elements = document.querySelectorAll('[data-chart]');
  elements.forEach(function (el) {
    const kind = el.getAttribute('data-chart');
    const chart = echarts.init(el, null, { renderer: 'canvas' });
    charts[kind] = chart;
    chart.on('finished', function () {
      drawn.add(kind);
      document.body.setAttribute('data-charts-drawn', String(drawn.size));
    });
    chart.setOption(builders[kind](data, chart));
  });
  window.addEventListener('resize', function () {
    for (const k in charts) charts[k].resize();
  });
  window.iolensCharts = charts;
})();
