; one tile lost a letter
'("cymK" "KyCy" "ymkc"
  "mkYc" "Myc" "mCkY"
  "cmKY" "KYmC" "McMk")
