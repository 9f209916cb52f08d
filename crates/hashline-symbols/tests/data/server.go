// Package server serves requests.
package server

import (
	"fmt"
	"net/http"
)

// DefaultPort is the port used when none is given.
const DefaultPort = 8080

const (
	ModeDev  = "dev"
	ModeProd = "prod"
)

var requests int

// Handler answers one route.
type Handler interface {
	Serve(w http.ResponseWriter, r *http.Request)
}

// Server holds the routes.
type Server struct {
	routes map[string]Handler
	port   int
}

type Middleware func(Handler) Handler

// New makes a server.
func New(port int) *Server {
	return &Server{routes: map[string]Handler{}, port: port}
}

// Handle registers a route.
func (s *Server) Handle(path string, h Handler) {
	s.routes[path] = h
}

func (s Server) String() string {
	return fmt.Sprintf("server on %d", s.port)
}
