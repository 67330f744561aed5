package collector

//go:generate go run ./internal/gencounters c/counters.h
