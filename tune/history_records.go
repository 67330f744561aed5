package tune

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Begin records a new session and returns its id. A zero Started means
// now; ID and Finished are ignored.
func (h *History) Begin(s Session) (int64, error) {
	if s.App == "" {
		return 0, fmt.Errorf("tuning history %s: begin session: empty application name", h.db.Path())
	}
	if s.Started.IsZero() {
		s.Started = time.Now()
	}
	var id int64
	ctx := context.Background()
	err := h.db.Write(ctx, func(c *sql.Conn) error {
		return c.QueryRowContext(ctx, `INSERT INTO sessions (app, command, space, strategy, started)
			VALUES (?, ?, ?, ?, ?) RETURNING id`,
			s.App, s.Command, s.Space, s.Strategy, formatTime(s.Started)).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("tuning history %s: begin session of %s: %w", h.db.Path(), s.App, err)
	}
	return id, nil
}

// Finish records that a session ended now.
func (h *History) Finish(session int64) error {
	ctx := context.Background()
	err := h.db.Write(ctx, func(c *sql.Conn) error {
		res, err := c.ExecContext(ctx, "UPDATE sessions SET finished = ? WHERE id = ?", formatTime(time.Now()), session)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrNoSession
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("tuning history %s: finish session %d: %w", h.db.Path(), session, err)
	}
	return nil
}

// Session returns the session of id id.
func (h *History) Session(id int64) (Session, error) {
	ss, err := h.sessions("WHERE id = ?", id)
	if err != nil {
		return Session{}, fmt.Errorf("tuning history %s: session %d: %w", h.db.Path(), id, err)
	}
	if len(ss) == 0 {
		return Session{}, fmt.Errorf("tuning history %s: session %d: %w", h.db.Path(), id, ErrNoSession)
	}
	return ss[0], nil
}

// Sessions returns the sessions of application app (all sessions if app
// is empty), oldest first.
func (h *History) Sessions(app string) ([]Session, error) {
	where, args := "", []any{}
	if app != "" {
		where, args = "WHERE app = ?", []any{app}
	}
	ss, err := h.sessions(where, args...)
	if err != nil {
		return nil, fmt.Errorf("tuning history %s: sessions of %q: %w", h.db.Path(), app, err)
	}
	return ss, nil
}

// sessions returns the sessions a WHERE clause selects, by id.
func (h *History) sessions(where string, args ...any) ([]Session, error) {
	ctx := context.Background()
	var out []Session
	err := h.db.Read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT id, app, command, space, strategy, started, finished FROM sessions "+where+" ORDER BY id", args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s Session
			var started, finished sql.NullString
			if err := rows.Scan(&s.ID, &s.App, &s.Command, &s.Space, &s.Strategy, &started, &finished); err != nil {
				return err
			}
			if s.Started, err = parseTime(started); err != nil {
				return fmt.Errorf("session %d: %w", s.ID, err)
			}
			if s.Finished, err = parseTime(finished); err != nil {
				return fmt.Errorf("session %d: %w", s.ID, err)
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	return out, err
}

// Record records a trial of a session, in its own transaction, and returns
// its sequence number.
func (h *History) Record(session int64, r Result) (int, error) {
	cfg, err := json.Marshal(r.Config)
	if err != nil {
		return 0, fmt.Errorf("tuning history %s: record trial of session %d: %w", h.db.Path(), session, err)
	}
	var obj any
	status, errText := "ok", ""
	if r.Err != nil {
		status, errText = "failed", r.Err.Error()
	} else {
		obj = r.Objective
	}
	var seq int
	ctx := context.Background()
	err = h.db.Write(ctx, func(c *sql.Conn) error {
		if err := c.QueryRowContext(ctx, "SELECT count(*) FROM sessions WHERE id = ?", session).Scan(&seq); err != nil {
			return err
		}
		if seq == 0 {
			return ErrNoSession
		}
		if err := c.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) + 1 FROM trials WHERE session = ?", session).Scan(&seq); err != nil {
			return err
		}
		_, err := c.ExecContext(ctx, `INSERT INTO trials (session, seq, config, key, objective, status, error, log, wall, recorded)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			session, seq, string(cfg), r.Config.Key(), obj, status, errText, r.Log, r.Wall.Seconds(), formatTime(time.Now()))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("tuning history %s: record trial %s of session %d: %w", h.db.Path(), r.Config, session, err)
	}
	return seq, nil
}

// Trials returns the trials of a session, in order.
func (h *History) Trials(session int64) ([]Trial, error) {
	out, err := h.trials("WHERE t.session = ?", session)
	if err != nil {
		return nil, fmt.Errorf("tuning history %s: trials of session %d: %w", h.db.Path(), session, err)
	}
	return out, nil
}

// trials returns the trials a WHERE clause over trials t joined to
// sessions s selects, by session and sequence number.
func (h *History) trials(where string, args ...any) ([]Trial, error) {
	ctx := context.Background()
	var out []Trial
	err := h.db.Read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT t.session, t.seq, t.config, t.objective, t.status, t.error, t.log, t.wall, t.recorded
			FROM trials t JOIN sessions s ON s.id = t.session `+where+` ORDER BY t.session, t.seq`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t Trial
			var cfg, status, errText string
			var obj sql.NullFloat64
			var wall float64
			var recorded sql.NullString
			if err := rows.Scan(&t.Session, &t.Seq, &cfg, &obj, &status, &errText, &t.Log, &wall, &recorded); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(cfg), &t.Config); err != nil {
				return fmt.Errorf("trial %d of session %d: %w", t.Seq, t.Session, err)
			}
			if status == "ok" {
				t.Objective = obj.Float64
			} else {
				t.Err = errors.New(errText)
			}
			t.Wall = time.Duration(wall * float64(time.Second))
			if t.Recorded, err = parseTime(recorded); err != nil {
				return fmt.Errorf("trial %d of session %d: %w", t.Seq, t.Session, err)
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

// Resume returns the results of the trials already recorded in a session,
// in order, marked Reused, so that a resumed search can skip them (see
// Cached).
func (h *History) Resume(session int64) ([]Result, error) {
	if _, err := h.Session(session); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	ts, err := h.Trials(session)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	out := make([]Result, len(ts))
	for i, t := range ts {
		out[i] = t.Result
		out[i].Reused = true
	}
	return out, nil
}

// Measurements returns the successful trials of every session of
// application app, oldest first: warm results for a model-based search
// (ModelBased.Warm).
func (h *History) Measurements(app string) ([]Result, error) {
	ts, err := h.trials("WHERE s.app = ? AND t.status = 'ok'", app)
	if err != nil {
		return nil, fmt.Errorf("tuning history %s: measurements of %s: %w", h.db.Path(), app, err)
	}
	out := make([]Result, len(ts))
	for i, t := range ts {
		out[i] = t.Result
		out[i].Reused = true
	}
	return out, nil
}

// RecordModel records a model fitted in a session.
func (h *History) RecordModel(session int64, m *Model) error {
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("tuning history %s: record model of session %d: %w", h.db.Path(), session, err)
	}
	ctx := context.Background()
	err = h.db.Write(ctx, func(c *sql.Conn) error {
		var seq int
		if err := c.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) + 1 FROM models WHERE session = ?", session).Scan(&seq); err != nil {
			return err
		}
		_, err := c.ExecContext(ctx, "INSERT INTO models (session, seq, terms, relative_error, recorded) VALUES (?, ?, ?, ?, ?)",
			session, seq, string(data), m.RelativeError(), formatTime(time.Now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("tuning history %s: record model of session %d: %w", h.db.Path(), session, err)
	}
	return nil
}

// Models returns the models recorded in a session, in order.
func (h *History) Models(session int64) ([]*Model, error) {
	ctx := context.Background()
	var out []*Model
	err := h.db.Read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT seq, terms FROM models WHERE session = ? ORDER BY seq", session)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int
			var data string
			if err := rows.Scan(&seq, &data); err != nil {
				return err
			}
			m := new(Model)
			if err := json.Unmarshal([]byte(data), m); err != nil {
				return fmt.Errorf("model %d: %w", seq, err)
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("tuning history %s: models of session %d: %w", h.db.Path(), session, err)
	}
	return out, nil
}
