package facility

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/report"
	"github.com/iolens/iolens/web"
)

func newServeCmd(s cli.Streams) *cobra.Command {
	var store, addr, userHeader string
	var admins []string
	cmd := &cobra.Command{
		Use:   "serve [--store DIR] [--addr HOST:PORT] [--user-header NAME [--admins U,...]]",
		Short: "Browse the facility dataset in a web UI",
		Long: `Serve runs a read-only web UI over the facility dataset: the overview
(/), the job list with filters, sorting and pages (/jobs), one job — the
'iolens report' page of its log — (/jobs/{id}) and one application with
its history and regressions (/apps/{name}). Pages make no request outside
the server. It listens on 127.0.0.1:8080 unless --addr says otherwise.

On a multi-user machine, put it behind the site's authenticating reverse
proxy and name the header the proxy sets to the user name with
--user-header: each user then sees only the jobs of their uid, except the
--admins. Without --user-header every job is visible to whoever reaches
the port.`,
		Example: `  iolens serve --store /data/io
  iolens serve --store /data/io --addr 127.0.0.1:9000 --user-header X-Remote-User --admins alice,bob`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(admins) > 0 && userHeader == "" {
				return cli.Usagef("--admins needs --user-header")
			}
			dir := storeDir(store)
			db, err := openStore(dir)
			if err != nil {
				return err
			}
			defer db.Close()
			h, err := web.New(db, web.Options{UserHeader: userHeader, Admins: admins})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", addr, err)
			}
			fmt.Fprintf(s.Err, "iolens: serving %s on http://%s/ (Ctrl-C stops)\n", report.Sanitize(dir), ln.Addr())
			if userHeader == "" {
				fmt.Fprintf(s.Err, "iolens: no --user-header: every job is visible to whoever reaches %s\n", ln.Addr())
			}
			if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
				fmt.Fprintf(s.Err, "iolens: %s is reachable from other machines\n", ln.Addr())
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return err
			case <-ctx.Done():
			}
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(shut); err != nil {
				return err
			}
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	storeFlag(cmd, &store)
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&userHeader, "user-header", "", "request header holding the authenticated user name (set by a reverse proxy)")
	cmd.Flags().StringSliceVar(&admins, "admins", nil, "users who see every job (with --user-header)")
	return cmd
}
