package web

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/iolens/iolens/report"
)

// templateFuncs returns the functions of the templates: units for people,
// and URLs of pages built from untrusted names.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"bytes":    report.Bytes,
		"duration": duration,
		"count":    count,
		"datetime": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
		"date":     func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
		"lower":    strings.ToLower,
		"userName": userName,
		"jobURL":   func(id string) string { return "/jobs/" + url.PathEscape(id) },
		"appURL":   func(name string) string { return "/apps/" + url.PathEscape(name) },
		"listURL":  listURL,
		"ratio":    ratio,
		"percent":  percent,
	}
}

// duration formats seconds for people: "0.42 s", "12.3 s", "4 min 05 s",
// "2 h 03 min".
func duration(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case s < 10:
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		r := int64(math.Round(s))
		return fmt.Sprintf("%d min %02d s", r/60, r%60)
	}
	r := int64(math.Round(s / 60))
	return fmt.Sprintf("%d h %02d min", r/60, r%60)
}

// ratio formats a / b as "10.0×", "–" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", a/b)
}

// percent formats n / total as a percentage, "–" when total is 0.
func percent(n int64, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d%%", int64(math.Round(100*float64(n)/float64(total))))
}

// count formats an integer with thousands separators: 1,234,567.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// userName returns the user name of a job, or "uid N" when the dataset
// has none.
func userName(name string, uid int64) string {
	if name == "" {
		return "uid " + strconv.FormatInt(uid, 10)
	}
	return name
}

// listURL returns the URL of the job list with the parameters given as
// name, value pairs (empty values left out).
func listURL(pairs ...string) (string, error) {
	if len(pairs)%2 != 0 {
		return "", fmt.Errorf("listURL: odd number of arguments %q", pairs)
	}
	v := url.Values{}
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			v.Set(pairs[i], pairs[i+1])
		}
	}
	return jobsURL(v), nil
}

// jobsURL returns the URL of the job list with the parameters v.
func jobsURL(v url.Values) string {
	if len(v) == 0 {
		return "/jobs"
	}
	return "/jobs?" + v.Encode()
}
