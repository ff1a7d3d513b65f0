# Sourced by benchmarks: the CPU time (user + system) of the PostgreSQL
# backends serving one database, read from /proc. Backends exit when their
# client disconnects, taking their counters with them, so a sampler reads
# every backend of the database every 50 ms and keeps each one's last
# reading: a backend's last 50 ms at most go uncounted. The server must run
# on this machine, readable by this user.
#
#   pgcpu_start DB      # before the measured command
#   secs=$(pgcpu_stop)  # after it: CPU-seconds of DB's backends meanwhile

pgcpu_start() {
	PGCPU_FILE=$(mktemp)
	local db=$1
	(
		while :; do
			# title: "postgres: [cluster: ]user database host(port) state"
			for p in $(pgrep -f "^postgres: ([^ ]+: )?[^ ]+ $db "); do
				# fields 14 and 15: utime, stime (comm is "postgres": no spaces)
				read -r -a f 2>/dev/null <"/proc/$p/stat" && echo "$p ${f[13]} ${f[14]}"
			done
			sleep 0.05
		done >>"$PGCPU_FILE"
	) &
	PGCPU_PID=$!
}

pgcpu_stop() {
	kill "$PGCPU_PID" 2>/dev/null
	wait "$PGCPU_PID" 2>/dev/null || true
	awk -v hz="$(getconf CLK_TCK)" '{ u[$1] = $2; s[$1] = $3 } END { t = 0; for (p in u) t += u[p] + s[p]; printf "%.2f\n", t / hz }' "$PGCPU_FILE"
	rm -f "$PGCPU_FILE"
}
