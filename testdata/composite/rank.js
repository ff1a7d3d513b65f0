// rank: {items: [{subject, from, priority}]} → {top: the three highest-priority subjects, count}
function main(input) {
  var items = (input.items || []).slice();
  items.sort(function (a, b) { return (b.priority || 0) - (a.priority || 0); });
  var top = items.slice(0, 3).map(function (m) { return m.subject + " (" + m.from + ")"; });
  return { top: top, count: items.length };
}
