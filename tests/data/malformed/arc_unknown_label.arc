; a wasp crept in
(with (mantis 1 beetle 2)
  (= tiles (list
    (list beetle mantis (- beetle) mantis)
    (list beetle wasp (- beetle) mantis)
    (list beetle mantis (- beetle) mantis)
    (list beetle mantis (- beetle) mantis))))
