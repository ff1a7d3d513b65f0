// email-summary: {query, max, mails?} → {items, count}: the mails whose subject or
// sender contains the query, at most max. The mails come with the input (skills
// have no I/O); without them a small built-in inbox is searched.
function main(input) {
  var inbox = input.mails || [
    { subject: "Quarterly report due Friday", from: "boss@example.com", priority: 3 },
    { subject: "Lunch?", from: "sam@example.com", priority: 1 },
    { subject: "Report figures attached", from: "finance@example.com", priority: 2 },
    { subject: "Server report: disk 91% full", from: "ops@example.com", priority: 5 }
  ];
  var q = String(input.query || "").toLowerCase();
  var max = input.max || 20;
  var items = inbox.filter(function (m) {
    return m.subject.toLowerCase().indexOf(q) >= 0 || m.from.toLowerCase().indexOf(q) >= 0;
  }).slice(0, max);
  return { items: items, count: items.length };
}
